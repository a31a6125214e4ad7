//! The C API called from Rust: the same promises as `tests/c/test_api.c`, in a form
//! Miri can check (`cargo +nightly miri test -p bumpdown-c --test ffi`, with
//! `-Zmiri-strict-provenance`): the fixed arena's handle inside the caller's buffer,
//! checkpoints carried as bytes, and `errno` on every failure.

use core::ffi::{c_int, CStr};
use core::ptr;

use bumpdown_c::ffi::*;

fn errno() -> c_int {
    std::io::Error::last_os_error().raw_os_error().unwrap()
}

fn stats(arena: *mut bd_arena) -> bd_stats {
    let mut s = bd_stats::default();
    // SAFETY: a live handle from the test; `s` is writable.
    assert_eq!(unsafe { bd_arena_stats(arena, &mut s) }, BD_OK);
    s
}

#[test]
fn growable_arena_round_trip() {
    // SAFETY: every handle comes from a constructor and is destroyed once; allocations
    // are used only before the reset or rewind that frees them.
    unsafe {
        let arena = bd_arena_create();
        assert!(!arena.is_null());
        let p = bd_alloc_slow(arena, 8, 8).cast::<u64>();
        p.write(41);
        let s = bd_strdup(arena, c"hello".as_ptr());
        assert_eq!(CStr::from_ptr(s), c"hello");
        let t = bd_strndup(arena, c"hello".as_ptr(), 2);
        assert_eq!(CStr::from_ptr(t), c"he");
        let mut cp = core::mem::MaybeUninit::<bd_checkpoint>::uninit();
        assert_eq!(bd_checkpoint_save(arena, cp.as_mut_ptr()), BD_OK);
        let cp = cp.assume_init_ref();
        for _ in 0..100 {
            assert!(!bd_alloc_slow(arena, 100, 16).is_null());
        }
        assert!(!bd_alloc_slow(arena, 1 << 20, 8).is_null()); // out of band
        assert_eq!(bd_rewind(arena, cp), BD_OK);
        assert_eq!(*p, 41);
        assert_eq!(stats(arena).big_chunks, 0);
        assert_eq!(bd_reset(arena), BD_OK);
        assert_eq!(stats(arena).used, 0);
        assert_eq!(bd_rewind(arena, cp), BD_ERR_STALE_CHECKPOINT);
        assert_eq!(bd_reset_with_limit(arena, 0), BD_OK);
        // No chunk left: only the arena's bookkeeping block.
        assert_eq!(stats(arena).held, <bumpdown::Arena>::BOOKKEEPING_BYTES);
        bd_arena_destroy(arena);
    }
}

#[test]
fn fixed_arena_lives_in_the_buffer() {
    let mut buf = vec![0u8; 4096];
    let range = buf.as_ptr_range();
    // SAFETY: the buffer outlives the arena and is not touched while it exists.
    unsafe {
        let arena = bd_arena_create_fixed(buf.as_mut_ptr().add(3).cast(), 4093);
        assert!(!arena.is_null());
        assert!(range.contains(&arena.cast_const().cast()));
        let mut n = 0;
        loop {
            let p = bd_alloc_slow(arena, 64, 16).cast::<u8>();
            if p.is_null() {
                assert_eq!(errno(), libc::ENOMEM);
                break;
            }
            assert!(range.contains(&p.cast_const()) && p as usize % 16 == 0);
            p.write_bytes(0xab, 64);
            n += 1;
        }
        assert!(n > 40, "{n}");
        assert_eq!(stats(arena).held, 0);
        assert_eq!(bd_reset(arena), BD_OK);
        assert!(!bd_alloc_slow(arena, 64, 16).is_null());
        bd_arena_destroy(arena);
    }
}

#[test]
fn bad_input_gives_null_and_errno() {
    // SAFETY: NULL handles are allowed by every function; the arena is live until the end.
    unsafe {
        let null = ptr::null_mut();
        for (p, want) in [
            (bd_alloc_slow(null, 8, 8), libc::EINVAL),
            (bd_strdup(null, c"x".as_ptr()).cast(), libc::EINVAL),
            (bd_arena_create_fixed(ptr::null_mut(), 100).cast(), libc::EINVAL),
        ] {
            assert!(p.is_null());
            assert_eq!(errno(), want);
        }
        let arena = bd_arena_create();
        for (size, align) in [(8, 0), (8, 3), (usize::MAX, 1), (isize::MAX as usize, 8)] {
            assert!(bd_alloc_slow(arena, size, align).is_null());
            assert_eq!(errno(), libc::EINVAL, "size {size} align {align}");
        }
        assert!(bd_strndup(arena, ptr::null(), 3).is_null());
        assert_eq!(bd_reset(null), BD_ERR_NULL);
        assert_eq!(bd_rewind(arena, ptr::null()), BD_ERR_NULL);
        assert_eq!(bd_checkpoint_save(arena, ptr::null_mut()), BD_ERR_NULL);
        assert_eq!(bd_arena_stats(null, &mut bd_stats::default()), BD_ERR_NULL);

        let other = bd_arena_create();
        let mut cp = core::mem::MaybeUninit::<bd_checkpoint>::uninit();
        assert_eq!(bd_checkpoint_save(other, cp.as_mut_ptr()), BD_OK);
        assert_eq!(bd_rewind(arena, cp.as_ptr()), BD_ERR_FOREIGN_CHECKPOINT);
        assert_eq!(errno(), libc::EINVAL);
        let zeroed = core::mem::zeroed::<bd_checkpoint>();
        assert_eq!(bd_rewind(arena, &zeroed), BD_ERR_BAD_CHECKPOINT);
        bd_arena_destroy(other);

        let opts = bd_options { limit: 4096, ..Default::default() };
        let limited = bd_arena_create_with(&opts);
        assert!(!bd_alloc_slow(limited, 100, 8).is_null());
        assert!(bd_alloc_slow(limited, 10_000, 8).is_null());
        assert_eq!(errno(), libc::ENOMEM);
        bd_arena_destroy(limited);

        // A first checkpoint needs the arena's bookkeeping block: over the limit, an error.
        let opts = bd_options { limit: 16, ..Default::default() };
        let tiny = bd_arena_create_with(&opts);
        assert!(!tiny.is_null());
        assert_eq!(bd_checkpoint_save(tiny, cp.as_mut_ptr()), BD_ERR_NOMEM);
        assert_eq!(errno(), libc::ENOMEM);
        bd_arena_destroy(tiny);
        bd_arena_destroy(arena);
        bd_arena_destroy(null);
    }
}

#[test]
fn vm_arena_round_trip() {
    use bumpdown_c::vm::*;
    // SAFETY: the handle comes from `bd_vm_create_with` and is destroyed once, last;
    // blocks are used only while live (before the rewind and reset that free them) and
    // resized with the size they have.
    unsafe {
        let opts = bd_vm_options { reserve: 1 << 20, reset_policy: BD_VM_KEEP_PAGES, ..Default::default() };
        let vm = bd_vm_create_with(&opts);
        assert!(!vm.is_null());
        let p = bd_vm_alloc_slow(vm, 8, 8).cast::<u64>();
        p.write(41);
        // The newest block grows in place and shrinks back.
        let buf = bd_vm_alloc_slow(vm, 10, 1).cast::<u8>();
        buf.write_bytes(7, 10);
        assert_eq!(bd_vm_realloc_last(vm, buf.cast(), 10, 100_000, 1), buf.cast());
        assert_eq!(*buf.add(9), 7);
        buf.add(99_999).write(1);
        assert_eq!(bd_vm_realloc_last(vm, buf.cast(), 100_000, 20, 1), buf.cast());
        // The tail given back was dirty: zeroed memory over it is cleared.
        let z = bd_vm_calloc(vm, 100_000, 1, 1).cast::<u8>();
        assert_eq!(z, buf.add(20));
        assert!((0..100_000).all(|i| *z.add(i) == 0));
        // Not the newest any more: growing moves and copies.
        let moved = bd_vm_realloc_last(vm, buf.cast(), 20, 40, 1).cast::<u8>();
        assert!(moved > z && *moved.add(9) == 7);

        let mut cp = core::mem::MaybeUninit::<bd_checkpoint>::uninit();
        assert_eq!(bd_vm_checkpoint_save(vm, cp.as_mut_ptr()), BD_OK);
        let cp = cp.assume_init_ref();
        let used = {
            let mut s = bd_vm_stats::default();
            assert_eq!(bd_vm_arena_stats(vm, &mut s), BD_OK);
            s.used
        };
        assert!(!bd_vm_alloc_zeroed(vm, 5000, 64).is_null());
        assert_eq!(bd_vm_rewind(vm, cp), BD_OK);
        let mut s = bd_vm_stats::default();
        assert_eq!(bd_vm_arena_stats(vm, &mut s), BD_OK);
        assert_eq!((s.used, s.reserved), (used, 1 << 20));
        assert!(s.peak_used >= used + 5000 && s.committed >= s.peak_used);
        assert_eq!(*p, 41);

        // Bad input: NULL + errno, nothing disturbed.
        assert!(bd_vm_alloc_slow(vm, 8, 3).is_null());
        assert_eq!(errno(), libc::EINVAL);
        assert!(bd_vm_alloc_slow(vm, 2 << 20, 8).is_null());
        assert_eq!(errno(), libc::ENOMEM);
        assert!(bd_vm_realloc_last(vm, ptr::null_mut(), 8, 16, 8).is_null());
        assert_eq!(errno(), libc::EINVAL);
        assert!(bd_vm_calloc(vm, usize::MAX, 2, 1).is_null());
        assert_eq!(errno(), libc::EINVAL);
        assert!(bd_vm_create_with(ptr::null()).is_null());
        assert_eq!(errno(), libc::EINVAL);
        assert_eq!(bd_vm_rewind(ptr::null_mut(), cp), BD_ERR_NULL);

        assert_eq!(bd_vm_reset(vm), BD_OK);
        assert_eq!(bd_vm_rewind(vm, cp), BD_ERR_STALE_CHECKPOINT);
        bd_vm_destroy(vm);
    }
}
