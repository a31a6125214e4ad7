//! The standard traits that a collection gets from what it derefs to, written once for
//! this crate's collections and for the bumpalo facade's wrappers of them
//! (`bumpdown-bumpalo`), whose constructors take `&'bump Bump` as bumpalo's do and so
//! cannot be these types themselves.
//!
//! Each macro implements, for a type named by the caller, the traits whose bodies only
//! go through `Deref`: `Debug`, `Hash`, comparisons, and the iterator and future
//! forwarding of a box. They are exported (`#[doc(hidden)]`, not part of the API) so
//! that the facade reuses them; every path inside is absolute, so they expand the same
//! in either crate.

/// For a `$vec<'_, T>` that derefs to `[T]`: `Debug`, `Hash`, `Eq`, `Ord`, `PartialOrd`,
/// `PartialEq` with any `$vec<'_, U>` and with slices and arrays of `U` (`T: PartialEq<U>`),
/// borrowing as a slice (and as itself), and iteration by reference. `eq: [generics] rhs;` adds
/// `PartialEq<rhs>` for more right-hand sides (e.g. `alloc::vec::Vec<U>`).
#[doc(hidden)]
#[macro_export]
macro_rules! __slice_traits {
    ($vec:ident) => {
        impl<T: ::core::fmt::Debug> ::core::fmt::Debug for $vec<'_, T> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::core::fmt::Debug::fmt(&**self, f)
            }
        }

        impl<T: ::core::hash::Hash> ::core::hash::Hash for $vec<'_, T> {
            fn hash<H: ::core::hash::Hasher>(&self, state: &mut H) {
                ::core::hash::Hash::hash(&**self, state)
            }
        }

        impl<T: Eq> Eq for $vec<'_, T> {}

        impl<T: PartialOrd> PartialOrd for $vec<'_, T> {
            fn partial_cmp(&self, other: &Self) -> Option<::core::cmp::Ordering> {
                PartialOrd::partial_cmp(&**self, &**other)
            }
        }

        impl<T: Ord> Ord for $vec<'_, T> {
            fn cmp(&self, other: &Self) -> ::core::cmp::Ordering {
                Ord::cmp(&**self, &**other)
            }
        }

        impl<T> AsRef<[T]> for $vec<'_, T> {
            fn as_ref(&self) -> &[T] {
                self
            }
        }

        impl<T> AsMut<[T]> for $vec<'_, T> {
            fn as_mut(&mut self) -> &mut [T] {
                self
            }
        }

        /// The vector itself, for code generic over `AsRef<Vec<T>>` (as bumpalo's `Vec` has).
        impl<'a, T> AsRef<$vec<'a, T>> for $vec<'a, T> {
            fn as_ref(&self) -> &$vec<'a, T> {
                self
            }
        }

        impl<'a, T> AsMut<$vec<'a, T>> for $vec<'a, T> {
            fn as_mut(&mut self) -> &mut $vec<'a, T> {
                self
            }
        }

        impl<T> ::core::borrow::Borrow<[T]> for $vec<'_, T> {
            fn borrow(&self) -> &[T] {
                self
            }
        }

        impl<T> ::core::borrow::BorrowMut<[T]> for $vec<'_, T> {
            fn borrow_mut(&mut self) -> &mut [T] {
                self
            }
        }

        impl<'v, T> IntoIterator for &'v $vec<'_, T> {
            type Item = &'v T;
            type IntoIter = ::core::slice::Iter<'v, T>;

            fn into_iter(self) -> Self::IntoIter {
                self.iter()
            }
        }

        impl<'v, T> IntoIterator for &'v mut $vec<'_, T> {
            type Item = &'v mut T;
            type IntoIter = ::core::slice::IterMut<'v, T>;

            fn into_iter(self) -> Self::IntoIter {
                self.iter_mut()
            }
        }

        $crate::__slice_traits!($vec eq:
            [] $vec<'_, U>;
            [] [U];
            [] &[U];
            [] &mut [U];
            [const N: usize] [U; N];
            [const N: usize] &[U; N];
            [const N: usize] &mut [U; N];
        );
    };
    ($vec:ident eq: $([$($gen:tt)*] $rhs:ty;)*) => {$(
        impl<T, U, $($gen)*> PartialEq<$rhs> for $vec<'_, T>
        where
            T: PartialEq<U>,
        {
            fn eq(&self, other: &$rhs) -> bool {
                self[..] == other[..]
            }
        }
    )*};
}

/// For a `$string<'_>` that derefs to `str`: `Display`, `Debug` and `Hash` as the `str`,
/// borrowing as a `str` (and its bytes), and `PartialEq` both ways with each listed type
/// that slices to a `str`.
#[doc(hidden)]
#[macro_export]
macro_rules! __str_traits {
    ($string:ident; $($rhs:ty),*) => {
        impl ::core::fmt::Display for $string<'_> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::core::fmt::Display::fmt(self.as_str(), f)
            }
        }

        impl ::core::fmt::Debug for $string<'_> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::core::fmt::Debug::fmt(self.as_str(), f)
            }
        }

        impl ::core::hash::Hash for $string<'_> {
            fn hash<H: ::core::hash::Hasher>(&self, state: &mut H) {
                ::core::hash::Hash::hash(self.as_str(), state)
            }
        }

        impl AsRef<str> for $string<'_> {
            fn as_ref(&self) -> &str {
                self
            }
        }

        impl AsRef<[u8]> for $string<'_> {
            fn as_ref(&self) -> &[u8] {
                self.as_bytes()
            }
        }

        impl ::core::borrow::Borrow<str> for $string<'_> {
            fn borrow(&self) -> &str {
                self
            }
        }

        impl ::core::borrow::BorrowMut<str> for $string<'_> {
            fn borrow_mut(&mut self) -> &mut str {
                self
            }
        }

        $crate::__str_traits!(@eq $string; $($rhs),*);
    };
    (@eq $string:ident; $($rhs:ty),*) => {$(
        impl PartialEq<$rhs> for $string<'_> {
            fn eq(&self, other: &$rhs) -> bool {
                self.as_str() == &other[..]
            }
        }

        impl PartialEq<$string<'_>> for $rhs {
            fn eq(&self, other: &$string<'_>) -> bool {
                &self[..] == other.as_str()
            }
        }
    )*};
}

/// For a `$box<'_, T: ?Sized>` that derefs to `T`: formatting, comparisons (boxes of two
/// lifetimes, that is two arenas, compare), `Hash`, and the `Hasher`, iterator and
/// future traits of what it holds.
#[doc(hidden)]
#[macro_export]
macro_rules! __box_traits {
    ($box:ident) => {
        impl<T: ?Sized + ::core::fmt::Debug> ::core::fmt::Debug for $box<'_, T> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::core::fmt::Debug::fmt(&**self, f)
            }
        }

        impl<T: ?Sized + ::core::fmt::Display> ::core::fmt::Display for $box<'_, T> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::core::fmt::Display::fmt(&**self, f)
            }
        }

        impl<'b, T: ?Sized + PartialEq> PartialEq<$box<'b, T>> for $box<'_, T> {
            fn eq(&self, other: &$box<'b, T>) -> bool {
                **self == **other
            }
        }

        impl<T: ?Sized + Eq> Eq for $box<'_, T> {}

        impl<'b, T: ?Sized + PartialOrd> PartialOrd<$box<'b, T>> for $box<'_, T> {
            fn partial_cmp(&self, other: &$box<'b, T>) -> Option<::core::cmp::Ordering> {
                (**self).partial_cmp(&**other)
            }
        }

        impl<T: ?Sized + Ord> Ord for $box<'_, T> {
            fn cmp(&self, other: &Self) -> ::core::cmp::Ordering {
                (**self).cmp(&**other)
            }
        }

        impl<T: ?Sized + ::core::hash::Hash> ::core::hash::Hash for $box<'_, T> {
            fn hash<H: ::core::hash::Hasher>(&self, state: &mut H) {
                (**self).hash(state)
            }
        }

        impl<H: ::core::hash::Hasher + ?Sized> ::core::hash::Hasher for $box<'_, H> {
            fn finish(&self) -> u64 {
                (**self).finish()
            }

            fn write(&mut self, bytes: &[u8]) {
                (**self).write(bytes)
            }

            fn write_u8(&mut self, i: u8) {
                (**self).write_u8(i)
            }

            fn write_u32(&mut self, i: u32) {
                (**self).write_u32(i)
            }

            fn write_u64(&mut self, i: u64) {
                (**self).write_u64(i)
            }

            fn write_usize(&mut self, i: usize) {
                (**self).write_usize(i)
            }
        }

        impl<I: Iterator + ?Sized> Iterator for $box<'_, I> {
            type Item = I::Item;

            fn next(&mut self) -> Option<I::Item> {
                (**self).next()
            }

            fn size_hint(&self) -> (usize, Option<usize>) {
                (**self).size_hint()
            }
        }

        impl<I: DoubleEndedIterator + ?Sized> DoubleEndedIterator for $box<'_, I> {
            fn next_back(&mut self) -> Option<I::Item> {
                (**self).next_back()
            }
        }

        impl<I: ExactSizeIterator + ?Sized> ExactSizeIterator for $box<'_, I> {
            fn len(&self) -> usize {
                (**self).len()
            }
        }

        impl<I: ::core::iter::FusedIterator + ?Sized> ::core::iter::FusedIterator for $box<'_, I> {}

        /// A boxed future that can be moved (`Unpin`) is polled in place.
        impl<F: ::core::future::Future + Unpin + ?Sized> ::core::future::Future for $box<'_, F> {
            type Output = F::Output;

            fn poll(
                mut self: ::core::pin::Pin<&mut Self>,
                cx: &mut ::core::task::Context<'_>,
            ) -> ::core::task::Poll<F::Output> {
                ::core::pin::Pin::new(&mut **self).poll(cx)
            }
        }
    };
}
