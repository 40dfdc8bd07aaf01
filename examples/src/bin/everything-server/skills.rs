//! The Skills extension's fixture (`io.modelcontextprotocol/skills`, SEP-2640): the sample
//! skills of `examples/skills/` (`acme/billing/refunds`, with subdirectories, first, so that
//! the suite's directory scenario finds a subdirectory in the first skill listed, and
//! `git-workflow`), compiled in, and a generated skill, `reports/daily`, listed as
//! `"dynamic"`.

use mcp_server::skills::{DynamicSkill, MemorySkill, Skills};

/// The fixture's skills.
pub(crate) fn skills() -> anyhow::Result<Skills> {
    let refunds = MemorySkill::new("acme/billing/refunds")
        .file(
            "SKILL.md",
            include_str!("../../../skills/acme/billing/refunds/SKILL.md"),
        )
        .file(
            "examples/email.md",
            include_str!("../../../skills/acme/billing/refunds/examples/email.md"),
        )
        .file(
            "templates/refund.md",
            include_str!("../../../skills/acme/billing/refunds/templates/refund.md"),
        )
        .file(
            "templates/regional/eu-refund.md",
            include_str!("../../../skills/acme/billing/refunds/templates/regional/eu-refund.md"),
        );
    let git = MemorySkill::new("git-workflow").file(
        "SKILL.md",
        include_str!("../../../skills/git-workflow/SKILL.md"),
    );
    let daily = DynamicSkill::new(
        "reports/daily",
        "name: daily\ndescription: Assemble today's operational report from live data",
        |_cx| async {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or_default();
            format!("\n# Daily report\n\nGenerated at {now} (seconds since the epoch).\n")
        },
    );
    Ok(Skills::new().skill(refunds)?.skill(git)?.dynamic(daily)?)
}
