//! `vec!` and `format!` for the arena collections (named as bumpalo's, so code
//! migrates by renaming the crate).

/// Builds a [`collections::Vec`](crate::collections::Vec) in an arena, like `std`'s
/// `vec!`: `vec![in &arena; a, b, c]` or `vec![in &arena; elem; n]`.
///
/// ```
/// let arena = bumpdown::Arena::new();
/// let empty: bumpdown::collections::Vec<u8> = bumpdown::vec![in &arena];
/// let list = bumpdown::vec![in &arena; "a", "b"];
/// let zeros = bumpdown::vec![in &arena; 0u32; 4];
/// assert_eq!((empty.len(), list.len(), zeros.as_slice()), (0, 2, &[0; 4][..]));
/// ```
#[macro_export]
macro_rules! vec {
    ($($args:tt)*) => {
        $crate::__vec_in!(($crate::collections::Vec) $($args)*)
    };
}

/// Formats into a [`collections::String`](crate::collections::String) in an arena, like
/// `std`'s `format!`: `format!(in &arena, "{} {}", a, b)`.
///
/// # Panics
/// If a `Display` or `Debug` implementation returns an error, or the arena fails.
///
/// ```
/// let arena = bumpdown::Arena::new();
/// let name = "arena";
/// let s = bumpdown::format!(in &arena, "hello, {name}: {}", 1 + 1);
/// assert_eq!(s, "hello, arena: 2");
/// ```
#[macro_export]
macro_rules! format {
    ($($args:tt)*) => {
        $crate::__format_in!(($crate::collections::String) $($args)*)
    };
}

/// The body of `vec!`, here and in the bumpalo facade: `vec` is the `Vec` type to build
/// (each crate has its own, with the same constructors).
#[doc(hidden)]
#[macro_export]
macro_rules! __vec_in {
    (($($vec:tt)*) in $arena:expr $(;)?) => {
        $($vec)*::new_in($arena)
    };
    (($($vec:tt)*) in $arena:expr; $elem:expr; $n:expr) => {
        $($vec)*::from_elem_in($elem, $n, $arena)
    };
    (($($vec:tt)*) in $arena:expr; $($x:expr),+ $(,)?) => {
        $($vec)*::from_array_in([$($x),+], $arena)
    };
}

/// The body of `format!`, here and in the bumpalo facade: `string` is the `String`
/// type to write into.
#[doc(hidden)]
#[macro_export]
macro_rules! __format_in {
    (($($string:tt)*) in $arena:expr, $($arg:tt)*) => {{
        let mut s = $($string)*::new_in($arena);
        ::core::fmt::Write::write_fmt(&mut s, ::core::format_args!($($arg)*))
            .expect("a formatting trait implementation returned an error");
        s
    }};
}
