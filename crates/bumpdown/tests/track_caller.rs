//! Allocation panics point at the caller's line, not into the crate: every plain
//! (panicking) allocation method of every face is `#[track_caller]` down to the panic.

use std::cell::{Cell, RefCell};
use std::mem::MaybeUninit;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

use bumpdown::{Arena, FixedArena, SyncArena};
use core::alloc::Layout;

thread_local! {
    /// Whether this thread is inside `panic_location`, and where its last panic there
    /// was raised: (file, line).
    static PROBING: Cell<bool> = const { Cell::new(false) };
    static WHERE: RefCell<Option<(String, u32)>> = const { RefCell::new(None) };
}

/// Runs `f`, which must panic, and returns the file and line the panic names. Other
/// panics (a failed assertion) go to the default hook as usual.
fn panic_location(f: impl FnOnce()) -> (String, u32) {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !PROBING.get() {
                return default(info);
            }
            let location = info.location().map(|l| (l.file().to_owned(), l.line()));
            WHERE.set(location);
        }))
    });
    WHERE.set(None);
    PROBING.set(true);
    let result = catch_unwind(AssertUnwindSafe(f));
    PROBING.set(false);
    assert!(result.is_err(), "did not panic");
    WHERE.take().expect("the panic had no location")
}

/// Asserts that the panic of `$call` names the line of `$call` in this file.
macro_rules! panics_at_caller {
    ($call:expr) => {{
        let line = line!();
        let (file, at) = panic_location(|| {
            let _ = $call;
        });
        assert!(file.ends_with("track_caller.rs"), "`{}` panicked in {file}:{at}", stringify!($call));
        assert_eq!(at, line, "`{}` panicked at another line", stringify!($call));
    }};
}

/// More elements than any address space holds.
const HUGE: usize = usize::MAX / 4;

#[test]
fn arena_methods_panic_at_the_caller() {
    let arena = Arena::new();
    arena.set_allocation_limit(Some(0));
    panics_at_caller!(arena.alloc([0u8; 64]));
    panics_at_caller!(arena.alloc_with(|| [0u8; 64]));
    panics_at_caller!(arena.alloc_str("no room for this"));
    panics_at_caller!(arena.alloc_slice_copy(&[1u32; 10]));
    panics_at_caller!(arena.alloc_slice_clone(&[String::new()]));
    panics_at_caller!(arena.alloc_slice_fill_copy(HUGE, 0u64));
    panics_at_caller!(arena.alloc_slice_fill_clone(10, &1u8));
    panics_at_caller!(arena.alloc_slice_fill_with(10, |i| i));
    panics_at_caller!(arena.alloc_slice_fill_default::<u64>(10));
    panics_at_caller!(arena.alloc_slice_fill_iter(0..10u8));
    panics_at_caller!(arena.alloc_iter((0..10u8).filter(|_| true)));
    panics_at_caller!(arena.alloc_layout(Layout::new::<u64>()));
    panics_at_caller!(Arena::with_capacity(usize::MAX));
}

#[test]
fn scope_and_scratch_methods_panic_at_the_caller() {
    let mut arena = Arena::new();
    arena.set_allocation_limit(Some(0));
    arena.scope(|s| {
        panics_at_caller!(s.alloc([0u8; 64]));
        panics_at_caller!(s.alloc_slice_fill_copy(HUGE, 0u64));
        panics_at_caller!(s.alloc_str("no room"));
    });
    bumpdown::scratch(|s| {
        panics_at_caller!(s.alloc_slice_fill_copy(HUGE, 0u64));
        panics_at_caller!(s.alloc_layout(Layout::from_size_align(isize::MAX as usize, 1).unwrap()));
    });
}

#[test]
fn fixed_arena_methods_panic_at_the_caller() {
    let mut buf = [MaybeUninit::uninit(); 64];
    let arena = FixedArena::new(&mut buf);
    panics_at_caller!(arena.alloc([0u8; 100]));
    panics_at_caller!(arena.alloc_slice_copy(&[0u8; 100]));
    panics_at_caller!(arena.alloc_str(&"x".repeat(100)));
    panics_at_caller!(arena.alloc_layout(Layout::new::<[u64; 16]>()));
}

#[test]
fn sync_arena_methods_panic_at_the_caller() {
    let arena = SyncArena::new();
    panics_at_caller!(arena.alloc_layout(Layout::from_size_align(isize::MAX as usize - 8, 8).unwrap()));
    panics_at_caller!(SyncArena::with_capacity(usize::MAX));
    let local = arena.local();
    panics_at_caller!(local.alloc_slice_fill_copy(HUGE, 0u64));
    panics_at_caller!(local.alloc_layout(Layout::from_size_align(isize::MAX as usize - 8, 8).unwrap()));
}

#[cfg(all(unix, target_pointer_width = "64", any(target_os = "linux", target_os = "macos")))]
#[test]
fn vm_arena_methods_panic_at_the_caller() {
    let arena = bumpdown::VmArena::new(1 << 20);
    panics_at_caller!(arena.alloc([0u8; 2 << 20]));
    panics_at_caller!(arena.alloc_slice_fill_copy(HUGE, 0u64));
    panics_at_caller!(arena.alloc_str(&"x".repeat(2 << 20)));
    panics_at_caller!(arena.alloc_layout(Layout::from_size_align(2 << 20, 8).unwrap()));
    panics_at_caller!(bumpdown::VmArena::new(usize::MAX));
}
