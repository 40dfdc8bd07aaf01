//! The macros' own arguments (`#[tool(name = "...")]`) and doc comments.

use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;
use syn::{Attribute, Expr, ExprLit, Lit, LitStr, Meta};

/// What a macro makes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Tool,
    Prompt,
    Resource,
}

impl Kind {
    /// The attribute's name, as the user writes it.
    pub(crate) fn attr(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Prompt => "prompt",
            Kind::Resource => "resource",
        }
    }

    /// The kind an attribute on a method inside `#[tools]` names, if any.
    pub(crate) fn of(attr: &Attribute) -> Option<Kind> {
        let last = attr.path().segments.last()?;
        match last.ident.to_string().as_str() {
            "tool" => Some(Kind::Tool),
            "prompt" => Some(Kind::Prompt),
            "resource" => Some(Kind::Resource),
            _ => None,
        }
    }

    fn keys(self) -> &'static [&'static str] {
        match self {
            Kind::Tool | Kind::Prompt => &["name", "description", "title"],
            Kind::Resource => &["uri", "name", "description", "title", "mime_type"],
        }
    }
}

/// The keys given to the attribute.
#[derive(Default)]
pub(crate) struct Options {
    pub(crate) name: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) uri: Option<LitStr>,
    pub(crate) mime_type: Option<LitStr>,
}

impl Options {
    /// Parses `name = "...", description = "..."`, refusing keys `kind` does not take.
    pub(crate) fn parse(kind: Kind, tokens: TokenStream) -> syn::Result<Options> {
        let mut options = Options::default();
        let parser = syn::meta::parser(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            let slot = match key.as_str() {
                "name" => &mut options.name,
                "description" => &mut options.description,
                "title" => &mut options.title,
                "uri" if kind == Kind::Resource => &mut options.uri,
                "mime_type" if kind == Kind::Resource => &mut options.mime_type,
                _ => {
                    let expected = kind
                        .keys()
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ");
                    return Err(meta.error(format_args!(
                        "unknown key in `#[{}]`: expected {expected}",
                        kind.attr()
                    )));
                }
            };
            if slot.is_some() {
                return Err(meta.error(format_args!("`{key}` is given twice")));
            }
            let value = meta.value()?;
            let lit: LitStr = value.parse().map_err(|e| {
                syn::Error::new(
                    e.span(),
                    format_args!("`{key}` takes a string: `{key} = \"...\"`"),
                )
            })?;
            *slot = Some(lit);
            Ok(())
        });
        parser.parse2(tokens)?;
        Ok(options)
    }

    /// The options of an attribute on a method inside `#[tools]`.
    pub(crate) fn from_attr(kind: Kind, attr: &Attribute) -> syn::Result<Options> {
        match &attr.meta {
            Meta::Path(_) => Ok(Options::default()),
            Meta::List(list) => Options::parse(kind, list.tokens.clone()),
            Meta::NameValue(nv) => Err(syn::Error::new_spanned(
                nv,
                format_args!("write `#[{}(key = \"...\")]`", kind.attr()),
            )),
        }
    }
}

/// Whether `attr` is a doc comment (`///` or `#[doc = "..."]`).
pub(crate) fn is_doc(attr: &Attribute) -> bool {
    attr.path().is_ident("doc")
}

/// The text of the doc comments among `attrs`: lines joined, the one space after `///`
/// removed, trimmed. `None` when there is none (or it is blank).
pub(crate) fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|a| is_doc(a)) {
        if let Meta::NameValue(nv) = &attr.meta
            && let Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) = &nv.value
        {
            let text = s.value();
            for line in text.split('\n') {
                lines.push(line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned());
            }
        }
    }
    let text = lines.join("\n");
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// A string literal of `value`, spanned at `span`.
pub(crate) fn lit(value: &str, span: Span) -> LitStr {
    LitStr::new(value, span)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn keys_are_parsed_and_unknown_ones_named() {
        let o = Options::parse(Kind::Tool, quote!(name = "a", description = "b")).unwrap();
        assert_eq!(o.name.unwrap().value(), "a");
        assert_eq!(o.description.unwrap().value(), "b");
        let e = Options::parse(Kind::Tool, quote!(uri = "x")).err().unwrap();
        assert_eq!(
            e.to_string(),
            "unknown key in `#[tool]`: expected `name`, `description`, `title`"
        );
        let e = Options::parse(Kind::Prompt, quote!(name = 1))
            .err()
            .unwrap();
        assert_eq!(e.to_string(), "`name` takes a string: `name = \"...\"`");
        let e = Options::parse(Kind::Tool, quote!(name = "a", name = "b"))
            .err()
            .unwrap();
        assert_eq!(e.to_string(), "`name` is given twice");
    }

    #[test]
    fn doc_text_joins_lines() {
        let f: syn::ItemFn = syn::parse_quote! {
            /// Adds two numbers.
            ///
            /// Really.
            #[inline]
            fn f() {}
        };
        assert_eq!(doc_text(&f.attrs).unwrap(), "Adds two numbers.\n\nReally.");
        let g: syn::ItemFn = syn::parse_quote!(
            fn g() {}
        );
        assert_eq!(doc_text(&g.attrs), None);
    }
}
