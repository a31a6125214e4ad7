//! `Box`: an owned value in an arena, dropped with the box.

use core::alloc::Layout;
use core::any::Any;
use core::fmt;
use core::marker::PhantomData;
use core::mem::ManuallyDrop;
use core::ops::{Deref, DerefMut};
use core::ptr::{self, NonNull};

use super::{ArenaAllocator, FromIteratorIn, Vec};
use crate::error::{alloc_failed, AllocError};

/// An owned value in an arena: dropped when the box is dropped (unlike a value from
/// [`Arena::alloc`](crate::Arena::alloc)). Its memory is reclaimed when the arena is
/// reset.
///
/// ```
/// use bumpdown::collections::Box;
/// use std::rc::Rc;
///
/// let arena = bumpdown::Arena::new();
/// let shared = Rc::new(());
/// let b = Box::new_in(Rc::clone(&shared), &arena);
/// assert_eq!(Rc::strong_count(&shared), 2);
/// drop(b);
/// assert_eq!(Rc::strong_count(&shared), 1); // the box dropped its value
/// ```
pub struct Box<'a, T: ?Sized> {
    // INVARIANT: `ptr` points to an initialized `T` that this box alone owns, in memory
    // that stays valid for `'a` (an arena block, or dangling for a zero-sized `T`).
    ptr: NonNull<T>,
    _owns: PhantomData<(&'a (), T)>,
}

// SAFETY: the box owns its value like `&mut T` does, and nothing else touches the
// memory while `'a` lasts (the arena needs `&mut` to reuse it).
unsafe impl<T: ?Sized + Send> Send for Box<'_, T> {}
// SAFETY: as for `Send`: sharing the box shares `&T` only.
unsafe impl<T: ?Sized + Sync> Sync for Box<'_, T> {}

impl<'a, T> Box<'a, T> {
    /// Moves `value` into `arena`.
    ///
    /// # Panics
    /// If the arena fails.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let b = bumpdown::collections::Box::new_in([1u8; 3], &arena);
    /// assert_eq!(*b, [1, 1, 1]);
    /// ```
    #[inline]
    #[track_caller]
    pub fn new_in<A: ArenaAllocator + ?Sized>(value: T, arena: &'a A) -> Self {
        match Self::try_new_in(value, arena) {
            Ok(b) => b,
            Err(err) => alloc_failed(size_of::<T>(), align_of::<T>(), err),
        }
    }

    /// Like [`new_in`](Box::new_in), returning an error instead of panicking (`value`
    /// is dropped then).
    #[inline]
    pub fn try_new_in<A: ArenaAllocator + ?Sized>(value: T, arena: &'a A) -> Result<Self, AllocError> {
        let ptr =
            if size_of::<T>() == 0 { NonNull::dangling() } else { arena.allocate(Layout::new::<T>())?.cast::<T>() };
        // SAFETY: a fresh block for one `T` (or a dangling pointer for a zero-sized
        // one), valid while the arena is borrowed for `'a`.
        unsafe { ptr.as_ptr().write(value) };
        Ok(Box { ptr, _owns: PhantomData })
    }

    /// Moves the value out of the box.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let b = bumpdown::collections::Box::new_in(5, &arena);
    /// assert_eq!(b.into_inner(), 5);
    /// ```
    pub fn into_inner(self) -> T {
        let b = ManuallyDrop::new(self);
        // SAFETY: the box owned an initialized `T`; it is forgotten, so the value is
        // moved out once.
        unsafe { b.ptr.as_ptr().read() }
    }
}

impl<'a, T: ?Sized> Box<'a, T> {
    /// Takes ownership of the value behind `raw`.
    ///
    /// # Safety
    /// `raw` points to an initialized `T` that nothing else owns or uses, in memory valid
    /// for `'a` (typically from [`into_raw`](Box::into_raw) or an arena allocation).
    pub unsafe fn from_raw(raw: *mut T) -> Self {
        // SAFETY: the caller promises a valid, hence non-null, pointer.
        Box { ptr: unsafe { NonNull::new_unchecked(raw) }, _owns: PhantomData }
    }

    /// Gives up ownership: the value is no longer dropped by the box.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let b = bumpdown::collections::Box::new_in(1u32, &arena);
    /// let raw = bumpdown::collections::Box::into_raw(b);
    /// // SAFETY: `raw` came from `into_raw` and is used once.
    /// let b = unsafe { bumpdown::collections::Box::from_raw(raw) };
    /// assert_eq!(*b, 1);
    /// ```
    pub fn into_raw(b: Self) -> *mut T {
        ManuallyDrop::new(b).ptr.as_ptr()
    }

    /// Turns the box into a plain reference: the value is never dropped after this.
    ///
    /// ```
    /// let arena = bumpdown::Arena::new();
    /// let r: &mut u32 = bumpdown::collections::Box::leak(bumpdown::collections::Box::new_in(1, &arena));
    /// *r += 1;
    /// assert_eq!(*r, 2);
    /// ```
    pub fn leak(b: Self) -> &'a mut T {
        // SAFETY: the box owned the value uniquely, for `'a`; it is forgotten.
        unsafe { &mut *Self::into_raw(b) }
    }
}

impl<T: ?Sized> Drop for Box<'_, T> {
    fn drop(&mut self) {
        // SAFETY: the box owns an initialized `T`, dropped once, here.
        unsafe { ptr::drop_in_place(self.ptr.as_ptr()) }
    }
}

impl<T: ?Sized> Deref for Box<'_, T> {
    type Target = T;

    #[inline(always)]
    fn deref(&self) -> &T {
        // SAFETY: an initialized `T`, shared for the borrow of the box.
        unsafe { self.ptr.as_ref() }
    }
}

impl<T: ?Sized> DerefMut for Box<'_, T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: an initialized `T`, unique for the mutable borrow of the box.
        unsafe { self.ptr.as_mut() }
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

impl<T: ?Sized> core::borrow::Borrow<T> for Box<'_, T> {
    fn borrow(&self) -> &T {
        self
    }
}

impl<T: ?Sized> core::borrow::BorrowMut<T> for Box<'_, T> {
    fn borrow_mut(&mut self) -> &mut T {
        self
    }
}

crate::__box_traits!(Box);

/// The address of the value, as `{:p}` prints it.
impl<T: ?Sized> fmt::Pointer for Box<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Pointer::fmt(&self.ptr, f)
    }
}

impl<'a, T> Box<'a, [T]> {
    /// Collects `iter` into a boxed slice in `arena` (as bumpalo's inherent
    /// `Box::from_iter_in`).
    ///
    /// ```
    /// use bumpdown::collections::Box;
    /// let arena = bumpdown::Arena::new();
    /// let b = Box::from_iter_in((1..=3).map(|x| x * x), &arena);
    /// assert_eq!(*b, [1, 4, 9]);
    /// ```
    #[track_caller]
    pub fn from_iter_in<I, A>(iter: I, arena: &'a A) -> Self
    where
        I: IntoIterator<Item = T>,
        A: ArenaAllocator + 'a,
    {
        <Self as FromIteratorIn<'a, T>>::from_iter_in(iter, arena)
    }
}

impl<'a, T> FromIteratorIn<'a, T> for Box<'a, [T]> {
    #[track_caller]
    fn from_iter_in<I, A>(iter: I, arena: &'a A) -> Self
    where
        I: IntoIterator<Item = T>,
        A: ArenaAllocator + 'a,
    {
        Vec::from_iter_in(iter, arena).into_boxed_slice()
    }
}

/// A vector's elements, boxed: [`Vec::into_boxed_slice`].
impl<'a, T> From<Vec<'a, T>> for Box<'a, [T]> {
    fn from(v: Vec<'a, T>) -> Self {
        v.into_boxed_slice()
    }
}

/// An array box as a slice box, without moving the elements.
///
/// ```
/// use bumpdown::collections::Box;
/// let arena = bumpdown::Arena::new();
/// let b: Box<[u8]> = Box::new_in([1, 2, 3], &arena).into();
/// assert_eq!(b.len(), 3);
/// ```
impl<'a, T, const N: usize> From<Box<'a, [T; N]>> for Box<'a, [T]> {
    fn from(b: Box<'a, [T; N]>) -> Self {
        let raw = Box::into_raw(b);
        // SAFETY: `raw` owned an initialized `[T; N]`, which is `N` initialized `T`s at
        // the same address; the array box is forgotten, so ownership moves here once.
        unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(raw.cast::<T>(), N)) }
    }
}

/// A slice box of exactly `N` elements as an array box; any other length gives the box
/// back unchanged.
///
/// ```
/// use bumpdown::collections::{Box, Vec};
/// let arena = bumpdown::Arena::new();
/// let b = Vec::from_iter_in(0..4u8, &arena).into_boxed_slice();
/// let b: Box<[u8]> = match Box::<[u8; 3]>::try_from(b) { Ok(_) => unreachable!(), Err(b) => b };
/// let a: Box<[u8; 4]> = b.try_into().unwrap();
/// assert_eq!(*a, [0, 1, 2, 3]);
/// ```
impl<'a, T, const N: usize> TryFrom<Box<'a, [T]>> for Box<'a, [T; N]> {
    type Error = Box<'a, [T]>;

    fn try_from(b: Box<'a, [T]>) -> Result<Self, Self::Error> {
        if b.len() != N {
            return Err(b);
        }
        let raw = Box::into_raw(b);
        // SAFETY: `raw` owned `N` initialized `T`s, which are a `[T; N]` at the same
        // address; the slice box is forgotten, so ownership moves here once.
        Ok(unsafe { Box::from_raw(raw.cast::<[T; N]>()) })
    }
}

/// An empty slice, taking no arena memory.
///
/// ```
/// let b: bumpdown::collections::Box<[u32]> = Default::default();
/// assert!(b.is_empty());
/// ```
impl<T> Default for Box<'_, [T]> {
    fn default() -> Self {
        // An empty slice owns no memory and has nothing to drop.
        Box { ptr: NonNull::from(<&mut [T]>::default()), _owns: PhantomData }
    }
}

/// An empty string, taking no arena memory.
///
/// ```
/// let b: bumpdown::collections::Box<str> = Default::default();
/// assert_eq!(&*b, "");
/// ```
impl Default for Box<'_, str> {
    fn default() -> Self {
        Box { ptr: NonNull::from(<&mut str>::default()), _owns: PhantomData }
    }
}

/// Recovering the type of a boxed [`Any`]: `downcast` gives the box back as a `Box<T>`
/// if the value is a `T`, else returns it unchanged.
macro_rules! downcast {
    ($($any:ty),*) => {$(
        impl<'a> Box<'a, $any> {
            /// The box as a `Box<T>` if its value is a `T`; else `Err` with the box.
            ///
            /// ```
            /// use core::any::Any;
            /// use bumpdown::collections::Box;
            ///
            /// let arena = bumpdown::Arena::new();
            /// let b = Box::into_raw(Box::new_in(7u8, &arena));
            /// // SAFETY: a box's own pointer, owned by the new box alone.
            /// let b: Box<dyn Any> = unsafe { Box::from_raw(b as *mut dyn Any) };
            /// let b = b.downcast::<u32>().unwrap_err();
            /// assert_eq!(*b.downcast::<u8>().unwrap(), 7);
            /// ```
            pub fn downcast<T: Any>(self) -> Result<Box<'a, T>, Self> {
                if !<$any>::is::<T>(&*self) {
                    return Err(self);
                }
                let this = ManuallyDrop::new(self);
                // The value is a `T` (checked above): the same pointer, typed, owns it.
                Ok(Box { ptr: this.ptr.cast::<T>(), _owns: PhantomData })
            }
        }
    )*};
}
downcast!(dyn Any, dyn Any + Send);
