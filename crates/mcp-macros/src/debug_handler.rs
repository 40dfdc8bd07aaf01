//! `#[debug_handler]`: checks one handler function piece by piece, so that the compiler
//! reports each mistake at the parameter, the return type or the `.await` that causes it.

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, Ident, ItemFn, ReturnType, Type};

use crate::params::is_extractor;

/// What the handler's return value is checked against, from the attribute's argument.
enum Output {
    /// No argument: the return type is not checked.
    Any,
    /// `tool`, `prompt`, `resource` or `completion`: the conversion trait's path.
    Trait(&'static str),
}

fn output(attr: TokenStream) -> syn::Result<Output> {
    if attr.is_empty() {
        return Ok(Output::Any);
    }
    let kind: Ident = syn::parse2(attr.clone()).map_err(|_| unknown(&attr))?;
    match kind.to_string().as_str() {
        "tool" => Ok(Output::Trait("tool_result")),
        "prompt" => Ok(Output::Trait("prompt_result")),
        "resource" => Ok(Output::Trait("read_result")),
        "completion" => Ok(Output::Trait("completion")),
        _ => Err(unknown(&kind)),
    }
}

fn unknown(tokens: &impl ToTokens) -> syn::Error {
    syn::Error::new_spanned(
        tokens,
        "`#[debug_handler]` takes what the handler is for, to check its return type: \
         `tool`, `prompt`, `resource` or `completion` (or nothing)",
    )
}

/// The function as written (less `#[from_context]` on its parameters) and its checks.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut f = match syn::parse2::<ItemFn>(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            let e = syn::Error::new(
                proc_macro2::Span::call_site(),
                "`#[debug_handler]` goes on an `async fn`",
            );
            let mut out = e.to_compile_error();
            out.extend(item);
            return out;
        }
    };
    match checks(attr, &mut f) {
        Ok(checks) => quote!(#f #checks),
        Err(e) => {
            let e = e.to_compile_error();
            quote!(#e #f)
        }
    }
}

/// A parameter: its type, and whether it is an extractor by its type's name or a
/// `#[from_context]` mark.
struct Param {
    ty: Type,
    extractor: bool,
    text: String,
}

/// Tokens as a person writes them: `State<Style>`, not `State < Style >`.
fn tidy(tokens: &str) -> String {
    tokens
        .replace(" < ", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" :: ", "::")
        .replace(" ,", ",")
        .replace("& ", "&")
        .replace("( ", "(")
        .replace(" )", ")")
}

fn checks(attr: TokenStream, f: &mut ItemFn) -> syn::Result<TokenStream> {
    let output = output(attr)?;
    let sig = &mut f.sig;
    if sig.asyncness.is_none() {
        return Err(syn::Error::new(
            sig.fn_token.span,
            "`#[debug_handler]` checks `async fn`s: write `async fn`",
        ));
    }
    if !sig.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &sig.generics,
            "`#[debug_handler]` cannot check a generic function",
        ));
    }
    let mut params = Vec::new();
    for arg in sig.inputs.iter_mut() {
        let FnArg::Typed(pt) = arg else {
            return Err(syn::Error::new_spanned(
                arg,
                "`#[debug_handler]` goes on a free `async fn`, not a method",
            ));
        };
        let marked = pt.attrs.iter().any(|a| a.path().is_ident("from_context"));
        pt.attrs.retain(|a| !a.path().is_ident("from_context"));
        if let Type::Reference(r) = &*pt.ty {
            return Err(syn::Error::new_spanned(
                r,
                "a handler's parameters are owned values (`String`, not `&str`): the handler \
                 outlives the request that made them",
            ));
        }
        params.push(Param {
            ty: (*pt.ty).clone(),
            extractor: marked || is_extractor(&pt.ty),
            text: tidy(&format!(
                "{}: {}",
                pt.pat.to_token_stream(),
                pt.ty.to_token_stream()
            )),
        });
    }

    // With an extractor first, the handler has no input, so every parameter is an extractor:
    // one that looks like an input is in the wrong place.
    let no_input = params.first().is_some_and(|p| p.extractor);
    if no_input && let Some(misplaced) = params.iter().find(|p| !p.extractor) {
        return Err(syn::Error::new_spanned(
            &misplaced.ty,
            format_args!(
                "`{}` comes after an extractor, but a handler's input (a tool's arguments, a \
                 prompt's `PromptArguments`, a template's `UriParams`) is its first \
                 parameter: move it before the extractors (if it is an extractor of your own, \
                 mark it `#[from_context]`)",
                misplaced.text
            ),
        ));
    }
    let skip = usize::from(!no_input);
    let extractors = params.iter().skip(skip).map(|p| {
        let ty = &p.ty;
        quote_spanned!(ty.span()=> ::mcp_server::__private::extractor::<#ty>();)
    });

    let ident = &sig.ident;
    let unreachable = params
        .iter()
        .map(|p| quote_spanned!(p.ty.span()=> ::std::unreachable!()));
    let send = quote_spanned!(ident.span()=>
        ::mcp_server::__private::send_future(#ident(#(#unreachable),*));
    );
    let output = match (output, &sig.output) {
        (Output::Any, _) => TokenStream::new(),
        (Output::Trait(check), ReturnType::Type(_, ty)) => {
            let check = format_ident!("{check}");
            quote_spanned!(ty.span()=> ::mcp_server::__private::#check::<#ty>();)
        }
        (Output::Trait(check), ReturnType::Default) => {
            let check = format_ident!("{check}");
            quote_spanned!(ident.span()=> ::mcp_server::__private::#check::<()>();)
        }
    };
    Ok(quote! {
        // The checks are never called: they only make the compiler look at each piece.
        #[allow(unreachable_code, unused_variables, clippy::diverging_sub_expression)]
        const _: () = {
            fn __mcp_debug_handler() {
                #(#extractors)*
                #output
                #send
            }
        };
    })
}
