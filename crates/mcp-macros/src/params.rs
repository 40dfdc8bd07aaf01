//! The function's signature, read: its receiver, its input parameters and its extractors.

use proc_macro2::Span;
use syn::{
    Attribute, FnArg, GenericArgument, Ident, Pat, PathArguments, ReceiverKind, Signature, Type,
};

use crate::attrs::{Kind, doc_text, is_doc};

/// How a method inside `#[tools]` takes `self`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Receiver {
    /// No receiver: an associated function (or a free function).
    None,
    /// `&self`: the handler calls it on its clone of the `Arc`.
    Ref,
    /// `self: Arc<Self>`: the handler passes it a clone of the `Arc`.
    Arc,
}

/// A parameter of the function.
pub(crate) struct Param {
    pub(crate) ty: Type,
    pub(crate) role: Role,
}

pub(crate) enum Role {
    /// A value taken from the request's context.
    Extractor,
    /// The tool's argument, the prompt's argument or the template's variable `ident`.
    Input {
        ident: Ident,
        docs: Option<String>,
        /// `#[serde(...)]` and `#[schemars(...)]`, kept for the args struct's field.
        field_attrs: Vec<Attribute>,
    },
}

/// The extractor types recognized by name (their last path segment).
const EXTRACTORS: &[&str] = &["Context", "State", "Extension", "Server"];

/// Reads `sig`, removing from it the attributes only the macro understands (doc comments,
/// `#[from_context]`, `#[serde]`, `#[schemars]` on parameters). `in_impl`: inside
/// `#[tools]`, where a receiver is allowed.
pub(crate) fn read(
    kind: Kind,
    sig: &mut Signature,
    in_impl: bool,
) -> syn::Result<(Receiver, Vec<Param>)> {
    let attr = kind.attr();
    if sig.asyncness.is_none() {
        return Err(syn::Error::new(
            sig.fn_token.span,
            format_args!("`#[{attr}]` functions must be async: write `async fn`"),
        ));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        return Err(syn::Error::new_spanned(
            &sig.generics,
            format_args!(
                "`#[{attr}]` functions cannot be generic: the macro must name every parameter's type"
            ),
        ));
    }
    if let Some(v) = &sig.variadic {
        return Err(syn::Error::new_spanned(
            v,
            "variadic parameters are not supported",
        ));
    }
    let mut receiver = Receiver::None;
    let mut errors: Option<syn::Error> = None;
    let mut push = |e: syn::Error| match &mut errors {
        Some(all) => all.combine(e),
        None => errors = Some(e),
    };
    let mut params = Vec::new();
    for arg in sig.inputs.iter_mut() {
        match arg {
            FnArg::Receiver(r) => match receiver_kind(r, in_impl, attr) {
                Ok(k) => receiver = k,
                Err(e) => push(e),
            },
            FnArg::Typed(pt) => {
                let docs = doc_text(&pt.attrs);
                let marked = pt.attrs.iter().any(|a| a.path().is_ident("from_context"));
                let field_attrs: Vec<Attribute> = pt
                    .attrs
                    .iter()
                    .filter(|a| a.path().is_ident("serde") || a.path().is_ident("schemars"))
                    .cloned()
                    .collect();
                pt.attrs.retain(|a| {
                    !is_doc(a)
                        && !a.path().is_ident("from_context")
                        && !a.path().is_ident("serde")
                        && !a.path().is_ident("schemars")
                });
                let ty = (*pt.ty).clone();
                if marked || is_extractor(&ty) {
                    params.push(Param {
                        ty,
                        role: Role::Extractor,
                    });
                    continue;
                }
                if !field_attrs.is_empty() && kind != Kind::Tool {
                    push(syn::Error::new_spanned(
                        &field_attrs[0],
                        "`#[serde]` and `#[schemars]` apply to tool arguments only",
                    ));
                }
                match input_ident(&pt.pat, &ty, attr) {
                    Ok(ident) => params.push(Param {
                        ty,
                        role: Role::Input {
                            ident,
                            docs,
                            field_attrs,
                        },
                    }),
                    Err(e) => push(e),
                }
            }
        }
    }
    match errors {
        Some(e) => Err(e),
        None => Ok((receiver, params)),
    }
}

fn receiver_kind(r: &syn::Receiver, in_impl: bool, attr: &str) -> syn::Result<Receiver> {
    if !in_impl {
        return Err(syn::Error::new_spanned(
            r,
            format_args!(
                "a `self` parameter needs `#[tools]` on the impl block, which gives the \
                 `#[{attr}]` methods their `Arc<Self>`"
            ),
        ));
    }
    let ok = match &r.kind {
        ReceiverKind::Reference(_, _, None) => Some(Receiver::Ref),
        ReceiverKind::Typed(_, ty) if last_ident(ty).is_some_and(|i| i == "Arc") => {
            Some(Receiver::Arc)
        }
        _ => None,
    };
    ok.ok_or_else(|| {
        syn::Error::new_spanned(
            r,
            format_args!(
                "`#[{attr}]` methods take `&self` or `self: Arc<Self>`: the handler holds an \
                 `Arc<Self>` shared by every call"
            ),
        )
    })
}

/// The name of an input parameter, which must be a plain identifier of an owned type.
fn input_ident(pat: &Pat, ty: &Type, attr: &str) -> syn::Result<Ident> {
    if let Type::Reference(r) = ty {
        return Err(syn::Error::new_spanned(
            r,
            format_args!(
                "`#[{attr}]` input parameters must be owned (`String`, not `&str`): they are \
                 deserialized from the request"
            ),
        ));
    }
    match pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Ok(p.ident.clone()),
        _ => Err(syn::Error::new_spanned(
            pat,
            format_args!(
                "`#[{attr}]` input parameters must be plain names, since the name is the \
                 argument's: write `name: Type` and destructure in the body (or mark an \
                 extractor `#[from_context]`)"
            ),
        )),
    }
}

/// The last path segment's identifier of a path type.
fn last_ident(ty: &Type) -> Option<&Ident> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| &s.ident),
        Type::Group(g) => last_ident(&g.elem),
        Type::Paren(p) => last_ident(&p.elem),
        _ => None,
    }
}

/// The `T` of `Option<T>`, if `ty` is one.
pub(crate) fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        GenericArgument::Type(t) if args.args.len() == 1 => Some(t),
        _ => None,
    }
}

/// Whether `ty` is one of the known extractors, or an `Option` of one.
pub(crate) fn is_extractor(ty: &Type) -> bool {
    if let Some(inner) = option_inner(ty) {
        return is_extractor(inner);
    }
    last_ident(ty).is_some_and(|i| EXTRACTORS.iter().any(|e| i == e))
}

/// The span to blame for the function as a whole.
pub(crate) fn sig_span(sig: &Signature) -> Span {
    sig.ident.span()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roles(sig: &str) -> Vec<String> {
        let mut sig: Signature = syn::parse_str(sig).unwrap();
        let (_, params) = read(Kind::Tool, &mut sig, true).unwrap();
        params
            .iter()
            .map(|p| match &p.role {
                Role::Extractor => "x".to_owned(),
                Role::Input { ident, docs, .. } => {
                    format!("{ident}:{}", docs.as_deref().unwrap_or(""))
                }
            })
            .collect()
    }

    #[test]
    fn extractors_are_told_from_inputs() {
        let got = roles(
            "async fn f(&self, /// A.\n a: i64, cx: mcp_server::Context, State(s): State<S>, \
             e: Option<Extension<E>>, #[from_context] u: User, b: Option<String>, srv: Server)",
        );
        assert_eq!(got, ["a:A.", "x", "x", "x", "x", "b:", "x"]);
    }

    #[test]
    fn option_inner_finds_the_parameter() {
        let ty: Type = syn::parse_str("std::option::Option<u32>").unwrap();
        assert!(option_inner(&ty).is_some());
        let ty: Type = syn::parse_str("Vec<u32>").unwrap();
        assert!(option_inner(&ty).is_none());
    }
}
