use std::path::Path;

use mcp_types::{McpUiResourcePermissions, Meta};
use serde_json::json;

use super::*;
use crate::Error;

fn refused(result: Result<UiResource>) -> UiError {
    match result {
        Err(Error::Ui(e)) => e,
        other => panic!("expected a UiError, got {other:?}"),
    }
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

#[test]
fn views_need_ui_uris() {
    let e = refused(UiResource::html(
        "https://example.com/app.html",
        "app",
        "<p>",
    ));
    assert_eq!(
        e.to_string(),
        r#""https://example.com/app.html" is not a ui:// URI"#
    );
    assert!(matches!(
        refused(UiResource::dynamic("notes://app", "app", |_cx| async {
            "<p>"
        })),
        UiError::NotUiUri { .. }
    ));
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "app.html", "<p>");
    assert!(matches!(
        refused(UiResource::file(
            "file:///app.html",
            "app",
            dir.path(),
            "app.html"
        )),
        UiError::NotUiUri { .. }
    ));
    assert_eq!(
        UiResource::html("ui://notes/app", "app", "<p>")
            .unwrap()
            .uri(),
        "ui://notes/app"
    );
}

#[test]
fn a_view_file_stays_inside_its_directory() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("views");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    write(&dir, "app.html", "<p>app</p>");
    write(&dir.join("sub"), "nested.html", "<p>nested</p>");
    write(root.path(), "secret.txt", "secret");
    let file = |path: &str| DirFile::new(&dir, Path::new(path));

    assert_eq!(file("app.html").unwrap().read().unwrap(), "<p>app</p>");
    assert_eq!(
        file("./sub/nested.html").unwrap().read().unwrap(),
        "<p>nested</p>"
    );
    for outside in ["../secret.txt", "sub/../../secret.txt", "", "."] {
        assert!(
            matches!(file(outside), Err(UiError::PathOutsideDir { .. })),
            "{outside:?}"
        );
    }
    let absolute = root.path().join("secret.txt");
    assert!(matches!(
        DirFile::new(&dir, &absolute),
        Err(UiError::PathOutsideDir { .. })
    ));
    assert!(matches!(file("sub"), Err(UiError::NotAFile { .. })));
    let missing = file("missing.html").unwrap_err();
    assert!(matches!(missing, UiError::Read { .. }));
    assert_eq!(missing.to_string(), "missing.html: cannot be read");

    // A link out of the directory is refused, whether it is there at first or planted
    // after the view was made.
    std::os::unix::fs::symlink(root.path().join("secret.txt"), dir.join("link.html")).unwrap();
    let e = file("link.html").unwrap_err();
    assert_eq!(e.to_string(), "link.html: resolves outside the directory");
    let later = file("app.html").unwrap();
    std::fs::remove_file(dir.join("app.html")).unwrap();
    std::os::unix::fs::symlink(root.path().join("secret.txt"), dir.join("app.html")).unwrap();
    assert!(matches!(later.read(), Err(UiError::OutsideDir { .. })));
    // A link inside the directory is served.
    std::os::unix::fs::symlink(dir.join("sub/nested.html"), dir.join("inner.html")).unwrap();
    assert_eq!(file("inner.html").unwrap().read().unwrap(), "<p>nested</p>");
    // A file that is not UTF-8 cannot be read as HTML.
    std::fs::write(dir.join("binary.html"), [0xff, 0xfe, 0]).unwrap();
    assert!(matches!(
        file("binary.html").unwrap().read(),
        Err(UiError::Read { .. })
    ));
}

#[test]
fn the_listed_view_carries_its_mime_type_and_meta() {
    let view = UiResource::html("ui://notes/app", "notes", "<p>")
        .unwrap()
        .title("Notes")
        .description("The notes, as a list")
        .csp(McpUiResourceCsp::default().with_connect_domains(["https://api.example.com"]))
        .permissions(McpUiResourcePermissions::default().with_clipboard_write())
        .domain("notes.example.com")
        .prefers_border(true)
        .into_resource();
    let def = serde_json::to_value(view.definition()).unwrap();
    assert_eq!(
        def,
        json!({
            "uri": "ui://notes/app", "name": "notes", "title": "Notes",
            "description": "The notes, as a list", "mimeType": "text/html;profile=mcp-app",
            "_meta": {"ui": {
                "csp": {"connectDomains": ["https://api.example.com"]},
                "permissions": {"clipboardWrite": {}},
                "domain": "notes.example.com",
                "prefersBorder": true
            }}
        })
    );
    // Without `_meta.ui` members, no `_meta`.
    let bare = UiResource::html("ui://notes/app", "notes", "<p>")
        .unwrap()
        .into_resource();
    assert_eq!(bare.definition().meta, None);
    // `ui_meta` replaces what the setters set.
    let replaced = UiResource::html("ui://a/b", "b", "<p>")
        .unwrap()
        .prefers_border(true)
        .ui_meta(McpUiResourceMeta::default().with_domain("d"));
    assert!(format!("{replaced:?}").contains(r#"domain: Some("d")"#));
    assert!(!format!("{replaced:?}").contains("prefers_border: Some"));
}

#[test]
fn read_contents_get_the_view_type_and_meta_unless_they_have_their_own() {
    let ui = McpUiResourceMeta::default().with_prefers_border(false);
    let mut own = TextResourceContents::new("ui://a/b", "<p>");
    own.meta = Some(Meta::from_iter([("ui".to_owned(), json!({"domain": "x"}))]));
    own.mime_type = Some("text/html".to_owned());
    let mut result = ReadResourceResult::new(vec![
        TextResourceContents::new("ui://a/b", "<p>").into(),
        own.into(),
    ]);
    stamp(&mut result, &ui);
    let contents = serde_json::to_value(&result.contents).unwrap();
    assert_eq!(
        contents,
        json!([
            {"uri": "ui://a/b", "mimeType": "text/html;profile=mcp-app", "text": "<p>",
             "_meta": {"ui": {"prefersBorder": false}}},
            {"uri": "ui://a/b", "mimeType": "text/html;profile=mcp-app", "text": "<p>",
             "_meta": {"ui": {"domain": "x"}}}
        ])
    );
}

#[test]
fn tools_link_views_and_keep_their_other_meta() {
    let tool = Tool::new("refresh", || async { "done" })
        .meta(Meta::from_iter([("acme/trace".to_owned(), json!(true))]))
        .ui("ui://notes/app")
        .ui_visibility([McpUiToolVisibility::App]);
    assert_eq!(
        json!(tool.definition().meta),
        json!({"acme/trace": true, "ui": {"resourceUri": "ui://notes/app", "visibility": ["app"]}})
    );
    assert!(!offer::for_model(&tool));
    // The plain definition keeps the rest of `_meta`, and drops the deprecated key too.
    let plain = plain_definition(tool.definition()).unwrap();
    assert_eq!(json!(plain.meta), json!({"acme/trace": true}));
    let flat = Tool::new("old", || async { "x" }).meta(Meta::from_iter([(
        "ui/resourceUri".to_owned(),
        json!("ui://notes/app"),
    )]));
    assert_eq!(plain_definition(flat.definition()).unwrap().meta, None);
    assert!(offer::for_model(&flat));
    let none = Tool::new("plain", || async { "x" });
    assert!(plain_definition(none.definition()).is_none());
    assert!(offer::for_model(&none));
    // Visibility alone, then a link: both kept, in either order.
    let both = Tool::new("t", || async { "x" })
        .ui_visibility([McpUiToolVisibility::Model])
        .ui("ui://a/b");
    assert_eq!(
        json!(both.definition().meta),
        json!({"ui": {"resourceUri": "ui://a/b", "visibility": ["model"]}})
    );
    assert!(offer::for_model(&both));
}

#[test]
fn links_are_checked_against_the_views() {
    let view = || {
        UiResource::html("ui://notes/app", "notes", "<p>")
            .unwrap()
            .into_resource()
    };
    let linked = |name: &str, uri: &str| Tool::new(name, || async { "x" }).ui(uri);
    let plain = Tool::new("plain", || async { "x" });
    assert!(
        check_links(
            &[linked("show", "ui://notes/app"), plain.clone()],
            &[view()]
        )
        .is_ok()
    );
    assert!(has_ui(std::slice::from_ref(&plain), &[view()]));
    assert!(has_ui(&[linked("show", "ui://x/y")], &[]));
    assert!(!has_ui(
        &[plain],
        &[Resource::text("notes://all", "all", "")]
    ));

    let tools = [
        linked("show", "ui://notes/missing"),
        linked("web", "https://example.com/app.html"),
    ];
    let Err(Error::BrokenUiLinks(broken)) = check_links(&tools, &[view()]) else {
        panic!("the links are broken");
    };
    assert_eq!(broken.len(), 2);
    assert_eq!(broken[0].tool, "show");
    assert_eq!(broken[1].reason, "not a ui:// URI");
    assert_eq!(
        Error::BrokenUiLinks(broken).to_string(),
        "tools link views the server does not serve: tool \"show\" links \
         \"ui://notes/missing\" (no resource of the server has this URI); tool \"web\" links \
         \"https://example.com/app.html\" (not a ui:// URI); give each view to \
         ServerBuilder::ui_resource"
    );
}
