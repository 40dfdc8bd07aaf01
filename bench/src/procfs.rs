//! What the load generator reads of a server process in `/proc`: CPU time (nanoseconds
//! from each thread's `schedstat`, or clock ticks from `stat` where schedstat is missing)
//! and resident memory (`VmRSS` of `status`).

use std::fs;
use std::io;

/// The first field of `/proc/<pid>/task/<tid>/schedstat`: time spent on a CPU, in ns.
pub fn parse_schedstat(text: &str) -> Option<u64> {
    text.split_whitespace().next()?.parse().ok()
}

/// `utime + stime` of `/proc/<pid>/stat`, in clock ticks. The fields are counted after the
/// command name's closing parenthesis, since the name may contain spaces and parentheses.
pub fn parse_stat_ticks(text: &str) -> Option<u64> {
    let rest = &text[text.rfind(')')? + 1..];
    // After ')': state is field 3, utime field 14 and stime field 15 (1-based, of the line).
    let mut fields = rest.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
}

/// `VmRSS` of `/proc/<pid>/status`, in KiB.
pub fn parse_vm_rss_kib(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("VmRSS:"))?;
    line["VmRSS:".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// The CPU time process `pid` has used so far, in ns: the sum of its live threads'
/// `schedstat` (ns resolution; a thread that exited in between is not counted), or, where
/// the kernel has no schedstat, `stat`'s `utime + stime` (whole process, clock-tick
/// resolution).
pub fn cpu_ns(pid: u32) -> io::Result<u64> {
    let mut total = 0u64;
    let mut any = false;
    for entry in fs::read_dir(format!("/proc/{pid}/task"))? {
        let path = entry?.path().join("schedstat");
        if let Some(ns) = fs::read_to_string(path)
            .ok()
            .as_deref()
            .and_then(parse_schedstat)
        {
            total += ns;
            any = true;
        }
    }
    if any {
        return Ok(total);
    }
    let stat = fs::read_to_string(format!("/proc/{pid}/stat"))?;
    let ticks = parse_stat_ticks(&stat)
        .ok_or_else(|| io::Error::other(format!("cannot parse /proc/{pid}/stat")))?;
    Ok(ticks * 1_000_000_000 / clock_ticks())
}

/// `sysconf(_SC_CLK_TCK)` (100 where it cannot be read).
pub fn clock_ticks() -> u64 {
    nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
        .ok()
        .flatten()
        .and_then(|t| u64::try_from(t).ok())
        .filter(|&t| t > 0)
        .unwrap_or(100)
}

/// The resident memory of process `pid`, in KiB.
pub fn vm_rss_kib(pid: u32) -> io::Result<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status"))?;
    parse_vm_rss_kib(&status)
        .ok_or_else(|| io::Error::other(format!("no VmRSS in /proc/{pid}/status")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses() {
        assert_eq!(parse_schedstat("123456789 2345 17\n"), Some(123_456_789));
        assert_eq!(parse_schedstat(""), None);
        let stat = "4242 (echo (x) y) S 1 4242 4242 0 -1 4194560 120 0 0 0 37 12 0 0 20 0 1 0 \
                    9871 10000 300 18446744073709551615";
        assert_eq!(parse_stat_ticks(stat), Some(49));
        assert_eq!(parse_stat_ticks("garbage"), None);
        let status = "Name:\techo-ours\nVmPeak:\t  9000 kB\nVmRSS:\t    5120 kB\nThreads:\t3\n";
        assert_eq!(parse_vm_rss_kib(status), Some(5120));
        assert_eq!(parse_vm_rss_kib("Name: x\n"), None);
    }

    #[test]
    fn reads_this_process() {
        let pid = std::process::id();
        assert!(vm_rss_kib(pid).unwrap() > 0);
        // Spin a little so that some CPU time is on the books.
        let start = std::time::Instant::now();
        while start.elapsed() < std::time::Duration::from_millis(20) {
            std::hint::black_box(0);
        }
        assert!(cpu_ns(pid).unwrap() > 0);
        assert!(clock_ticks() > 0);
    }
}
