//! bumpalo's `boxed` module: [`Box`], a pointer to a value in a [`Bump`] that drops it.
//!
//! ```
//! use bumpdown_bumpalo::{boxed::Box, Bump};
//!
//! let bump = Bump::new();
//! let b = Box::new_in([1, 2, 3], &bump);
//! assert_eq!(b.iter().sum::<i32>(), 6);
//! ```
//!
//! A `#[repr(transparent)]` wrapper around [`bumpdown::collections::Box`], as the
//! facade's `Vec` is around bumpdown's: its constructors take `&'a Bump`, as bumpalo's
//! do, so a `&T` where `T: Deref<Target = Bump>` is deref-coerced to `&Bump`.

use core::any::Any;
use core::borrow::{Borrow, BorrowMut};
use core::fmt;
use core::ops::{Deref, DerefMut};

use bumpdown::collections::Box as ArenaBox;

use crate::Bump;

/// An owned value in a [`Bump`], dropped when the box is dropped (unlike a value from
/// [`Bump::alloc`]); its memory is reclaimed when the arena is reset. It dereferences
/// to the value. [`From`] turns it into bumpdown's own
/// [`Box`](bumpdown::collections::Box).
///
/// ```
/// use bumpdown_bumpalo::{boxed::Box, Bump};
/// use std::rc::Rc;
///
/// let bump = Bump::new();
/// let shared = Rc::new(());
/// let b = Box::new_in(Rc::clone(&shared), &bump);
/// assert_eq!(Rc::strong_count(&shared), 2);
/// drop(b);
/// assert_eq!(Rc::strong_count(&shared), 1);
/// ```
#[repr(transparent)]
pub struct Box<'a, T: ?Sized>(ArenaBox<'a, T>);

impl<'a, T> Box<'a, T> {
    /// Moves `x` into `a`.
    ///
    /// # Panics
    /// If the arena fails.
    #[inline]
    #[track_caller]
    pub fn new_in(x: T, a: &'a Bump) -> Self {
        Box(ArenaBox::new_in(x, a))
    }

    /// Moves the value out of the box (an associated function, as bumpalo's, so it does
    /// not hide a method of the value).
    ///
    /// ```
    /// use bumpdown_bumpalo::{boxed::Box, Bump};
    /// let bump = Bump::new();
    /// assert_eq!(Box::into_inner(Box::new_in(5, &bump)), 5);
    /// ```
    #[inline]
    pub fn into_inner(b: Self) -> T {
        b.0.into_inner()
    }
}

impl<'a, T: ?Sized> Box<'a, T> {
    /// Takes ownership of the value behind `raw`.
    ///
    /// # Safety
    /// As for [`bumpdown::collections::Box::from_raw`]: `raw` points to an initialized
    /// `T` that nothing else owns or uses, in memory valid for `'a` (typically from
    /// [`into_raw`](Box::into_raw) or an arena allocation).
    #[inline]
    pub unsafe fn from_raw(raw: *mut T) -> Self {
        // SAFETY: forwarded from the caller.
        Box(unsafe { ArenaBox::from_raw(raw) })
    }

    /// Gives up ownership: the value is no longer dropped by the box.
    #[inline]
    pub fn into_raw(b: Self) -> *mut T {
        ArenaBox::into_raw(b.0)
    }

    /// Turns the box into a plain reference: the value is never dropped after this.
    #[inline]
    pub fn leak(b: Self) -> &'a mut T {
        ArenaBox::leak(b.0)
    }
}

impl<'a, T> Box<'a, [T]> {
    /// Collects `iter` into a boxed slice in `a`.
    ///
    /// ```
    /// use bumpdown_bumpalo::{boxed::Box, Bump};
    /// let bump = Bump::new();
    /// let b = Box::from_iter_in((1..=3).map(|x| x * x), &bump);
    /// assert_eq!(*b, [1, 4, 9]);
    /// ```
    #[inline]
    #[track_caller]
    pub fn from_iter_in<I: IntoIterator<Item = T>>(iter: I, a: &'a Bump) -> Self {
        Box(ArenaBox::from_iter_in(iter, a))
    }
}

/// Recovering the type of a boxed [`Any`]: `downcast` gives the box back as a `Box<T>`
/// if the value is a `T`, else returns it unchanged.
macro_rules! downcast {
    ($($any:ty),*) => {$(
        impl<'a> Box<'a, $any> {
            /// The box as a `Box<T>` if its value is a `T`; else `Err` with the box.
            #[inline]
            pub fn downcast<T: Any>(self) -> Result<Box<'a, T>, Self> {
                self.0.downcast().map(Box).map_err(Box)
            }
        }
    )*};
}
downcast!(dyn Any, dyn Any + Send);

/// Without a move of the value: the same pointer.
impl<'a, T: ?Sized> From<Box<'a, T>> for ArenaBox<'a, T> {
    #[inline]
    fn from(b: Box<'a, T>) -> Self {
        b.0
    }
}

/// A box of bumpdown's as the facade's: the same pointer.
impl<'a, T: ?Sized> From<ArenaBox<'a, T>> for Box<'a, T> {
    #[inline]
    fn from(b: ArenaBox<'a, T>) -> Self {
        Box(b)
    }
}

/// An array box as a slice box, without moving the elements.
impl<'a, T, const N: usize> From<Box<'a, [T; N]>> for Box<'a, [T]> {
    #[inline]
    fn from(b: Box<'a, [T; N]>) -> Self {
        Box(b.0.into())
    }
}

/// A slice box of exactly `N` elements as an array box; any other length gives the box
/// back unchanged.
impl<'a, T, const N: usize> TryFrom<Box<'a, [T]>> for Box<'a, [T; N]> {
    type Error = Box<'a, [T]>;

    #[inline]
    fn try_from(b: Box<'a, [T]>) -> Result<Self, Self::Error> {
        b.0.try_into().map(Box).map_err(Box)
    }
}

/// An empty slice, taking no arena memory.
impl<T> Default for Box<'_, [T]> {
    fn default() -> Self {
        Box(ArenaBox::default())
    }
}

/// An empty string, taking no arena memory.
impl Default for Box<'_, str> {
    fn default() -> Self {
        Box(ArenaBox::default())
    }
}

impl<T: ?Sized> Deref for Box<'_, T> {
    type Target = T;

    #[inline(always)]
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: ?Sized> DerefMut for Box<'_, T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

impl<T: ?Sized> AsRef<T> for Box<'_, T> {
    fn as_ref(&self) -> &T {
        self
    }
}

impl<T: ?Sized> AsMut<T> for Box<'_, T> {
    fn as_mut(&mut self) -> &mut T {
        self
    }
}

impl<T: ?Sized> Borrow<T> for Box<'_, T> {
    fn borrow(&self) -> &T {
        self
    }
}

impl<T: ?Sized> BorrowMut<T> for Box<'_, T> {
    fn borrow_mut(&mut self) -> &mut T {
        self
    }
}

bumpdown::__box_traits!(Box);

/// The address of the value, as `{:p}` prints it.
impl<T: ?Sized> fmt::Pointer for Box<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Pointer::fmt(&self.0, f)
    }
}

/// Moving a box does not move its value, so a box is `Unpin` whatever it holds (as
/// bumpalo's and std's are).
impl<T: ?Sized> Unpin for Box<'_, T> {}

#[cfg(feature = "serde")]
impl<T: serde::Serialize + ?Sized> serde::Serialize for Box<'_, T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(serializer)
    }
}
