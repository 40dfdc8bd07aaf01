//! `#[tools]` on an `impl` block.

use proc_macro2::{Group, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::{ImplItem, ItemImpl, Visibility};

use crate::attrs::{Kind, Options};
use crate::expand::{Made, companion};

pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        let e = syn::Error::new_spanned(&attr, "`#[tools]` takes no arguments");
        let mut out = e.to_compile_error();
        out.extend(item);
        return out;
    }
    let mut block: ItemImpl = match syn::parse2(item.clone()) {
        Ok(b) => b,
        Err(e) => {
            let e = syn::Error::new(
                e.span(),
                "`#[tools]` goes on an `impl` block whose methods are marked `#[tool]`, \
                 `#[prompt]` or `#[resource]`",
            );
            let mut out = e.to_compile_error();
            out.extend(item);
            return out;
        }
    };
    if let Some((path, _)) = &block.trait_ {
        let e = syn::Error::new_spanned(
            path,
            "`#[tools]` goes on an inherent `impl` block (`impl MyServer { ... }`), not a trait's",
        );
        let mut out = e.to_compile_error();
        out.extend(item);
        return out;
    }

    let mut errors = TokenStream::new();
    let mut made: Vec<(Made, Visibility)> = Vec::new();
    for item in &mut block.items {
        let ImplItem::Fn(method) = item else { continue };
        let mut marks = Vec::new();
        method.attrs.retain(|a| match Kind::of(a) {
            Some(kind) => {
                marks.push((kind, a.clone()));
                false
            }
            None => true,
        });
        let Some((kind, attr)) = marks.first() else {
            continue;
        };
        if let Some((_, second)) = marks.get(1) {
            let e = syn::Error::new_spanned(
                second,
                "a method is one tool, prompt or resource: give it one of these attributes",
            );
            errors.extend(e.to_compile_error());
            continue;
        }
        if block.generics.params.is_empty() {
            // The args struct is an item of its own, where `Self` means nothing.
            name_self(&mut method.sig, &block.self_ty);
        }
        let span = method.sig.ident.span();
        let result = Options::from_attr(*kind, attr).and_then(|options| {
            companion(
                *kind,
                &options,
                &method.attrs,
                &method.vis,
                &mut method.sig,
                true,
                span,
            )
        });
        match result {
            Ok(m) => made.push((m, method.vis.clone())),
            Err(e) => errors.extend(e.to_compile_error()),
        }
    }

    let companions = made.iter().map(|(m, _)| &m.tokens);
    let collectors = [
        (
            Kind::Tool,
            false,
            "tools",
            quote!(::mcp_server::Tool),
            "tool",
        ),
        (
            Kind::Prompt,
            false,
            "prompts",
            quote!(::mcp_server::Prompt),
            "prompt",
        ),
        (
            Kind::Resource,
            false,
            "resources",
            quote!(::mcp_server::Resource),
            "resource",
        ),
        (
            Kind::Resource,
            true,
            "resource_templates",
            quote!(::mcp_server::ResourceTemplate),
            "resource template",
        ),
    ]
    .into_iter()
    .filter_map(|(kind, template, name, ty, what)| {
        let items: Vec<&(Made, Visibility)> = made
            .iter()
            .filter(|(m, _)| m.kind == kind && m.template == template)
            .collect();
        if items.is_empty() {
            return None;
        }
        let vis = widest(items.iter().map(|(_, v)| v));
        let pushes = items.iter().map(|(m, _)| {
            let (ident, cfgs) = (&m.ident, &m.cfgs);
            let args = m.takes_self.then(|| quote!(self));
            quote!(#(#cfgs)* __mcp_all.push(Self::#ident(#args));)
        });
        let name = syn::Ident::new(name, proc_macro2::Span::call_site());
        let doc = format!("Every {what} of this block's `#[{}]` methods.", kind.attr());
        Some(quote! {
            #[doc = #doc]
            #vis fn #name(self: &::std::sync::Arc<Self>) -> ::std::vec::Vec<#ty> {
                let mut __mcp_all = ::std::vec::Vec::new();
                #(#pushes)*
                __mcp_all
            }
        })
    });
    let extra: Vec<TokenStream> = companions.cloned().chain(collectors).collect();
    for tokens in extra {
        match syn::parse2::<ImplItem>(tokens) {
            Ok(item) => block.items.push(item),
            Err(e) => errors.extend(e.to_compile_error()),
        }
    }
    quote!(#errors #block)
}

/// Replaces `Self` in the types of `sig`'s parameters (not its receiver) by `self_ty`.
fn name_self(sig: &mut syn::Signature, self_ty: &syn::Type) {
    fn replace(tokens: TokenStream, self_ty: &syn::Type) -> TokenStream {
        tokens
            .into_iter()
            .map(|tt| match tt {
                TokenTree::Ident(i) if i == "Self" => quote!(#self_ty),
                TokenTree::Group(g) => {
                    let mut new = Group::new(g.delimiter(), replace(g.stream(), self_ty));
                    new.set_span(g.span());
                    TokenTree::Group(new).into()
                }
                other => other.into(),
            })
            .collect()
    }
    for arg in &mut sig.inputs {
        if let syn::FnArg::Typed(pt) = arg
            && let Ok(ty) = syn::parse2(replace(pt.ty.to_token_stream(), self_ty))
        {
            *pt.ty = ty;
        }
    }
}

/// The most visible of `vis`: `pub` over any restricted visibility over none.
fn widest<'a>(vis: impl Iterator<Item = &'a Visibility>) -> Visibility {
    let mut best = Visibility::Inherited;
    for v in vis {
        match (v, &best) {
            (Visibility::Public(_), _) => return v.clone(),
            (Visibility::Restricted(_), Visibility::Inherited) => best = v.clone(),
            _ => {}
        }
    }
    best
}
