//! `vec!` and `format!`, as bumpalo's: they build the facade's collections, through
//! constructors that take `&Bump` (so a `&T` where `T: Deref<Target = Bump>` works).

/// Builds a [`collections::Vec`](crate::collections::Vec) in a `Bump`, like `std`'s
/// `vec!`: `vec![in &bump; a, b, c]`, `vec![in &bump; elem; n]` or `vec![in &bump]`.
///
/// ```
/// let bump = bumpdown_bumpalo::Bump::new();
/// let empty: bumpdown_bumpalo::collections::Vec<u8> = bumpdown_bumpalo::vec![in &bump];
/// let list = bumpdown_bumpalo::vec![in &bump; "a", "b"];
/// let zeros = bumpdown_bumpalo::vec![in &bump; 0u32; 4];
/// assert_eq!((empty.len(), list.len(), zeros.as_slice()), (0, 2, &[0; 4][..]));
/// ```
#[macro_export]
macro_rules! vec {
    ($($args:tt)*) => {
        $crate::__bumpdown::__vec_in!(($crate::collections::Vec) $($args)*)
    };
}

/// Formats into a [`collections::String`](crate::collections::String) in a `Bump`, like
/// `std`'s `format!`: `format!(in &bump, "{} {}", a, b)`.
///
/// # Panics
/// If a `Display` or `Debug` implementation returns an error, or the arena fails.
///
/// ```
/// let bump = bumpdown_bumpalo::Bump::new();
/// let name = "bump";
/// let s = bumpdown_bumpalo::format!(in &bump, "hello, {name}: {}", 1 + 1);
/// assert_eq!(s, "hello, bump: 2");
/// ```
#[macro_export]
macro_rules! format {
    ($($args:tt)*) => {
        $crate::__bumpdown::__format_in!(($crate::collections::String) $($args)*)
    };
}
