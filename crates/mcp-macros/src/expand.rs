//! The companion functions: `<name>_tool()`, `<name>_prompt()`, `<name>_resource()`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Attribute, Ident, Item, Signature, Visibility};

use crate::attrs::{Kind, Options, doc_text, lit};
use crate::params::{self, Receiver, Role};
use crate::template;

/// `#[tool]`, `#[prompt]` or `#[resource]` on an item: the function as written (less its
/// parameters' macro-only attributes) and its companion, or the errors (and the function, so
/// that its callers do not add errors of their own).
pub(crate) fn item_fn(kind: Kind, attr: TokenStream, item: TokenStream) -> TokenStream {
    let options = Options::parse(kind, attr);
    let mut f = match syn::parse2::<Item>(item.clone()) {
        Ok(Item::Fn(f)) => f,
        Ok(other) => {
            let e = syn::Error::new(
                item_span(&other),
                format_args!(
                    "`#[{}]` goes on an `async fn` (or on a method inside `#[tools]`)",
                    kind.attr()
                ),
            );
            let mut out = e.to_compile_error();
            out.extend(item);
            return out;
        }
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(item);
            return out;
        }
    };
    let span = params::sig_span(&f.sig);
    let made = options
        .and_then(|options| companion(kind, &options, &f.attrs, &f.vis, &mut f.sig, false, span));
    match made {
        Ok(made) => {
            let companion = made.tokens;
            quote!(#f #companion)
        }
        Err(e) => {
            let e = e.to_compile_error();
            quote!(#e #f)
        }
    }
}

fn item_span(item: &Item) -> Span {
    match item {
        Item::Struct(s) => s.struct_token.span,
        Item::Enum(e) => e.enum_token.span,
        Item::Impl(i) => i.impl_token.span,
        Item::Const(c) => c.const_token.span,
        Item::Static(s) => s.static_token.span,
        Item::Mod(m) => m.mod_token.span,
        Item::Trait(t) => t.trait_token.span,
        Item::Type(t) => t.type_token.span,
        Item::Use(u) => u.use_token.span,
        other => other.span(),
    }
}

/// An input parameter of the function.
struct Input<'a> {
    /// The local the converted value is bound to (prompts and templates).
    local: Ident,
    ident: &'a Ident,
    /// The argument's (or variable's) name: the parameter's, without `r#`.
    name: syn::LitStr,
    docs: Option<&'a str>,
    ty: &'a syn::Type,
    field_attrs: &'a [Attribute],
}

/// A companion function made for a method or function.
pub(crate) struct Made {
    pub(crate) tokens: TokenStream,
    pub(crate) ident: Ident,
    pub(crate) kind: Kind,
    /// Whether the companion takes `self: &Arc<Self>`.
    pub(crate) takes_self: bool,
    /// For a resource: whether it is a template.
    pub(crate) template: bool,
    /// The function's `#[cfg]` attributes, which the companion has too.
    pub(crate) cfgs: Vec<Attribute>,
}

/// The companion of the function with signature `sig` (whose macro-only parameter attributes
/// are removed). `in_impl`: a method inside `#[tools]`.
pub(crate) fn companion(
    kind: Kind,
    options: &Options,
    fn_attrs: &[Attribute],
    vis: &Visibility,
    sig: &mut Signature,
    in_impl: bool,
    span: Span,
) -> syn::Result<Made> {
    let (receiver, params) = params::read(kind, sig, in_impl)?;
    let fn_ident = sig.ident.clone();
    let base = fn_ident.unraw().to_string();
    let name = options
        .name
        .clone()
        .unwrap_or_else(|| lit(&base, fn_ident.span()));
    let description = options
        .description
        .as_ref()
        .map(syn::LitStr::value)
        .or_else(|| doc_text(fn_attrs))
        .map(|d| lit(&d, Span::call_site()));

    // The closure's extractor parameters, and the call's arguments in the function's order.
    let mut extractors = Vec::new();
    let mut call_args = Vec::new();
    let mut inputs = Vec::new();
    if receiver == Receiver::Arc {
        call_args.push(quote!(::std::sync::Arc::clone(&__mcp_this)));
    }
    for (i, p) in params.iter().enumerate() {
        match &p.role {
            Role::Extractor => {
                let x = format_ident!("__mcp_x{i}");
                let ty = &p.ty;
                extractors.push(quote!(#x: #ty));
                call_args.push(quote!(#x));
            }
            Role::Input {
                ident,
                docs,
                field_attrs,
            } => {
                let a = format_ident!("__mcp_a{i}");
                call_args.push(match kind {
                    Kind::Tool => quote!(__mcp_args.#ident),
                    Kind::Prompt | Kind::Resource => quote!(#a),
                });
                inputs.push(Input {
                    local: a,
                    ident,
                    name: lit(&ident.unraw().to_string(), ident.span()),
                    docs: docs.as_deref(),
                    ty: &p.ty,
                    field_attrs,
                });
            }
        }
    }
    let call = match (receiver, in_impl) {
        (Receiver::Ref, _) => quote_spanned!(span=> __mcp_this.#fn_ident(#(#call_args),*)),
        (_, true) => quote_spanned!(span=> Self::#fn_ident(#(#call_args),*)),
        (_, false) => quote_spanned!(span=> #fn_ident(#(#call_args),*)),
    };
    let takes_self = receiver != Receiver::None;
    let this = takes_self.then(|| quote!(let __mcp_this = ::std::sync::Arc::clone(&__mcp_this);));

    // The constructor call carries the function name's span, so that what the compiler finds
    // wrong with the handler (a future that is not `Send`, a return type that is no result, a
    // parameter that is no extractor) is reported at the function, not at the attribute.
    let mut setup = TokenStream::new();
    let mut template = false;
    let (ret, mut expr) = match kind {
        Kind::Tool => {
            let body = if takes_self {
                quote_spanned!(span=> { #this async move { #call.await } })
            } else {
                call
            };
            if inputs.is_empty() {
                (
                    quote!(::mcp_server::Tool),
                    quote_spanned!(span=> ::mcp_server::Tool::new(#name, move |#(#extractors),*| #body)),
                )
            } else {
                let args = format_ident!("{}Args", camel(&base));
                setup = args_struct(&args, &name, &inputs);
                (
                    quote!(::mcp_server::Tool),
                    quote_spanned!(span=> ::mcp_server::Tool::typed(
                        #name,
                        move |__mcp_args: #args, #(#extractors),*| #body
                    )),
                )
            }
        }
        Kind::Prompt => {
            let convert = inputs.iter().map(|i| {
                let arg = &i.name;
                from_argument(&i.local, i.ty, quote!(__mcp_args.remove(#arg)), arg)
            });
            let mutability = (!inputs.is_empty()).then(|| quote!(mut));
            let mut expr = quote_spanned!(span=> ::mcp_server::Prompt::new(
                #name,
                move |#mutability __mcp_args: ::mcp_server::PromptArguments, #(#extractors),*| {
                    #this
                    async move {
                        #(#convert)*
                        ::std::result::Result::Ok::<_, ::mcp_server::Error>(#call.await)
                    }
                }
            ));
            for i in &inputs {
                let arg = &i.name;
                let required = params::option_inner(i.ty).is_none();
                expr.extend(match i.docs {
                    Some(d) => quote!(.argument(#arg, #d, #required)),
                    None => quote!(.argument_def(
                        ::mcp_server::types::PromptArgument::new(#arg, #required)
                    )),
                });
            }
            (quote!(::mcp_server::Prompt), expr)
        }
        Kind::Resource => {
            let uri = options.uri.as_ref().ok_or_else(|| {
                syn::Error::new(
                    span,
                    "`#[resource]` needs the URI: `#[resource(uri = \"...\")]`",
                )
            })?;
            let vars = template::variables(&uri.value()).map_err(|e| {
                syn::Error::new(uri.span(), format_args!("invalid URI template: {e}"))
            })?;
            check_vars(uri, &vars, &inputs)?;
            template = !vars.is_empty();
            let body = if takes_self {
                quote_spanned!(span=> { #this async move { #call.await } })
            } else {
                call.clone()
            };
            let mut expr = if template {
                let convert = inputs.iter().map(|i| {
                    let var = &i.name;
                    from_argument(
                        &i.local,
                        i.ty,
                        quote!(__mcp_params.get(#var).map(::std::borrow::ToOwned::to_owned)),
                        var,
                    )
                });
                let made = quote_spanned!(span=> ::mcp_server::ResourceTemplate::new(
                    #uri,
                    #name,
                    move |__mcp_params: ::mcp_server::UriParams, #(#extractors),*| {
                        #this
                        async move {
                            #(#convert)*
                            ::std::result::Result::Ok::<_, ::mcp_server::Error>(#call.await)
                        }
                    }
                ));
                quote!(::mcp_server::__private::template(#made))
            } else {
                quote_spanned!(span=> ::mcp_server::Resource::new(#uri, #name, move |#(#extractors),*| #body))
            };
            if let Some(m) = &options.mime_type {
                expr.extend(quote!(.mime_type(#m)));
            }
            let ret = if template {
                quote!(::mcp_server::ResourceTemplate)
            } else {
                quote!(::mcp_server::Resource)
            };
            (ret, expr)
        }
    };
    if let Some(d) = &description {
        expr.extend(quote!(.description(#d)));
    }
    if let Some(t) = &options.title {
        expr.extend(quote!(.title(#t)));
    }

    let what = match (kind, template) {
        (Kind::Resource, true) => "resource template",
        _ => kind.attr(),
    };
    let ident = format_ident!("{}_{}", base, kind.attr(), span = fn_ident.span());
    let doc = format!(
        "The `{}` {what}, made by `#[{}]` from `{base}`.",
        name.value(),
        kind.attr()
    );
    let params = takes_self.then(|| quote!(self: &::std::sync::Arc<Self>));
    let grab = takes_self.then(|| quote!(let __mcp_this = ::std::sync::Arc::clone(self);));
    // A function compiled only under some `cfg` has a companion compiled under the same.
    let cfgs: Vec<Attribute> = fn_attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .cloned()
        .collect();
    // The handler closure carries the function's span (see above), so lints that look at
    // spans take it for the user's code; a closure that only calls the function is how the
    // macro passes it, not something to simplify.
    let tokens = quote! {
        #[doc = #doc]
        #(#cfgs)*
        #[allow(clippy::redundant_closure, clippy::redundant_closure_for_method_calls)]
        #vis fn #ident(#params) -> #ret {
            #grab
            #setup
            #expr
        }
    };
    Ok(Made {
        tokens,
        ident,
        kind,
        takes_self,
        template,
        cfgs,
    })
}

/// `let a: T = FromArgument::from_argument(value, "name")?;`, blamed on `T` when `T` is no
/// string.
fn from_argument(a: &Ident, ty: &syn::Type, value: TokenStream, name: &syn::LitStr) -> TokenStream {
    quote_spanned! {ty.span()=>
        let #a: #ty = <#ty as ::mcp_server::__private::FromArgument>::from_argument(#value, #name)?;
    }
}

/// Every template variable has a parameter and every input parameter is a variable.
fn check_vars(uri: &syn::LitStr, vars: &[String], inputs: &[Input<'_>]) -> syn::Result<()> {
    let names: Vec<(String, Span)> = inputs
        .iter()
        .map(|i| (i.name.value(), i.ident.span()))
        .collect();
    for (name, span) in &names {
        if !vars.contains(name) {
            let msg = if vars.is_empty() {
                format!(
                    "`{name}` is not an extractor, and the URI `{}` has no variables: a resource \
                     with a fixed URI takes only extractors (write `{{{name}}}` in the URI to \
                     make it a template, or mark an extractor `#[from_context]`)",
                    uri.value()
                )
            } else {
                format!(
                    "`{name}` is not a variable of the URI template `{}`: name it after one \
                     (or mark an extractor `#[from_context]`)",
                    uri.value()
                )
            };
            return Err(syn::Error::new(*span, msg));
        }
    }
    for var in vars {
        if !names.iter().any(|(n, _)| n == var) {
            return Err(syn::Error::new(
                uri.span(),
                format!(
                    "the URI template variable `{var}` has no parameter: add `{var}: String` \
                     (or `Option<String>`) to the function"
                ),
            ));
        }
    }
    Ok(())
}

/// The tool's arguments as a struct deriving `Deserialize` and `JsonSchema` through
/// `mcp_server::__private`, each field documented by its parameter's doc comment. The
/// schema's `title` (the type's schema name) is the tool's name, not the struct's.
fn args_struct(name: &Ident, tool: &syn::LitStr, inputs: &[Input<'_>]) -> TokenStream {
    let fields = inputs.iter().map(|i| {
        let (ident, ty, attrs) = (i.ident, i.ty, i.field_attrs);
        let doc = i.docs.map(|d| quote!(#[doc = #d]));
        quote!(#doc #(#attrs)* #ident: #ty)
    });
    quote! {
        #[derive(
            ::mcp_server::__private::serde::Deserialize,
            ::mcp_server::__private::schemars::JsonSchema
        )]
        #[serde(crate = "::mcp_server::__private::serde")]
        #[schemars(crate = "::mcp_server::__private::schemars", rename = #tool)]
        struct #name {
            #(#fields,)*
        }
    }
}

/// `get_weather` -> `GetWeather`.
fn camel(snake: &str) -> String {
    snake
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(first) => first.to_uppercase().chain(c).collect(),
                None => String::new(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::camel;

    #[test]
    fn camel_case() {
        assert_eq!(camel("get_weather"), "GetWeather");
        assert_eq!(camel("add"), "Add");
        assert_eq!(camel("_x"), "X");
    }
}
