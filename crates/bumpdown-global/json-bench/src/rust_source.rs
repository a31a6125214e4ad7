//! The second workload: parse a generated Rust source file of about 4 MB with `syn` into
//! a syntax tree, count what is in it, drop it. A compiler front end's allocation pattern:
//! many small nodes, boxes and vectors built bottom-up, all dropped at the end.

use std::fmt::Write;

use syn::visit::{self, Visit};

/// Functions in the generated file (about 540 bytes each).
pub const FUNCTIONS: usize = 8_000;

/// Writes the source: `functions` functions of lets, loops, matches, closures and method
/// chains, each with a struct and an impl, from a fixed seed.
pub fn generate(functions: usize) -> String {
    let mut src = String::with_capacity(functions * 600);
    let mut x = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for i in 0..functions {
        let (a, b, c) = (next() % 97, next() % 89, next() % 13 + 1);
        // Writing to a String cannot fail.
        let _ = write!(
            src,
            "struct S{i} {{ a: u64, b: Vec<(u32, String)>, c: Option<Box<S{i}>> }}
impl S{i} {{
    fn f{i}(&self, v: &[u64], k: u64) -> u64 {{
        let mut acc = {a} + k;
        for (j, x) in v.iter().enumerate() {{
            acc = match (x ^ k) % {c} {{
                0 => acc.wrapping_mul({b}) + j as u64,
                1 | 2 => acc ^ (x << 3),
                _ => acc.saturating_sub(*x).max({a}),
            }};
        }}
        let g = |y: u64| -> u64 {{ y * {b} + self.a }};
        v.iter().map(|y| g(*y)).filter(|y| y % 2 == 0).fold(acc, |s, y| s.wrapping_add(y))
    }}
}}
"
        );
    }
    src
}

/// What the walk found.
#[derive(Debug, Default, PartialEq)]
pub struct Counts {
    /// Items (structs, impls, functions).
    pub items: u64,
    /// Expressions.
    pub exprs: u64,
    /// Identifiers.
    pub idents: u64,
}

impl<'ast> Visit<'ast> for Counts {
    fn visit_item(&mut self, i: &'ast syn::Item) {
        self.items += 1;
        visit::visit_item(self, i);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.items += 1;
        visit::visit_impl_item_fn(self, f);
    }

    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        self.exprs += 1;
        visit::visit_expr(self, e);
    }

    fn visit_ident(&mut self, _: &'ast proc_macro2::Ident) {
        self.idents += 1;
    }
}

/// Generates, parses and walks `functions` functions' worth of source.
pub fn parse_and_count(functions: usize) -> Counts {
    let src = generate(functions);
    let file = syn::parse_file(&src).expect("the generated source parses");
    let mut counts = Counts::default();
    counts.visit_file(&file);
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_source_parses_and_everything_is_counted() {
        let counts = parse_and_count(3);
        // Per function: a struct, an impl and its method.
        assert_eq!(counts.items, 9);
        assert!(counts.exprs > 3 * 30 && counts.idents > 3 * 40, "{counts:?}");
        assert_eq!(parse_and_count(3), counts, "the same source every time");
    }
}
