//! Fast-path probes: one `#[no_mangle]` function per allocation shape, so that
//! `tests/fast_path_asm.rs` can find them in the release binary's disassembly and count
//! their instructions and branches. Running it just calls each probe once.

// The probes are exported for the disassembler, not for readers.
#![allow(missing_docs)]

use bumpdown::Arena;
use std::hint::black_box;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct Struct24 {
    a: u64,
    b: u32,
    c: [u8; 12],
}

macro_rules! probes {
    ($($name:ident: $ty:ty = $val:expr;)*) => {
        $(
            #[no_mangle]
            #[inline(never)]
            pub fn $name(arena: &Arena, v: $ty) -> &mut $ty {
                arena.alloc(v)
            }
        )*
        fn run_all(arena: &Arena) {
            $( black_box($name(arena, $val)); )*
        }
    };
}

probes! {
    bumpdown_probe_alloc_u8: u8 = 1;
    bumpdown_probe_alloc_u16: u16 = 1;
    bumpdown_probe_alloc_u32: u32 = 1;
    bumpdown_probe_alloc_u64: u64 = 1;
    bumpdown_probe_alloc_u128: u128 = 1;
    bumpdown_probe_alloc_struct24: Struct24 = Struct24 { a: 1, b: 2, c: [3; 12] };
}

/// Eight-byte-aligned arena: alignment code folds away for every type up to `u64`.
#[no_mangle]
#[inline(never)]
pub fn bumpdown_probe_alloc_u32_min8(arena: &Arena<8>, v: u32) -> &mut u32 {
    arena.alloc(v)
}

/// Three allocations in a row: `top` should be loaded once, not three times.
#[no_mangle]
#[inline(never)]
pub fn bumpdown_probe_alloc_3x_u64(arena: &Arena, v: u64) -> (&mut u64, &mut u64, &mut u64) {
    (arena.alloc(v), arena.alloc(v + 1), arena.alloc(v + 2))
}

#[no_mangle]
#[inline(never)]
pub fn bumpdown_probe_alloc_slice_copy_u8<'a>(arena: &'a Arena, s: &[u8]) -> &'a mut [u8] {
    arena.alloc_slice_copy(s)
}

#[no_mangle]
#[inline(never)]
pub fn bumpdown_probe_alloc_str<'a>(arena: &'a Arena, s: &str) -> &'a mut str {
    arena.alloc_str(s)
}

/// A scope handle has the same fast path as the arena.
#[no_mangle]
#[inline(never)]
pub fn bumpdown_probe_scope_alloc_u64<'s>(scope: &bumpdown::Scope<'s, '_>, v: u64) -> &'s mut u64 {
    scope.alloc(v)
}

/// A loop through a scope handle: `top` should stay in a register across iterations.
#[no_mangle]
#[inline(never)]
pub fn bumpdown_probe_scope_loop_u64(arena: &mut Arena, n: u64) {
    arena.scope(|s| {
        for i in 0..n {
            black_box(s.alloc(i));
        }
    });
}

/// `n` rounds of: enter a scope, allocate four `u64`s through it, leave (the bench's
/// enter / exit kernel). `tests/fast_path_asm.rs` counts the instructions per round.
#[no_mangle]
#[inline(never)]
pub fn bumpdown_probe_scope_enter_exit(arena: &mut Arena, n: u64, v: u64) {
    for _ in 0..n {
        arena.scope(|s| {
            for _ in 0..4 {
                black_box(s.alloc(v));
            }
        });
    }
}

/// The same rounds with a guard.
#[no_mangle]
#[inline(never)]
pub fn bumpdown_probe_guard_enter_exit(arena: &mut Arena, n: u64, v: u64) {
    for _ in 0..n {
        let guard = arena.scope_guard();
        for _ in 0..4 {
            black_box(guard.alloc(v));
        }
    }
}

/// The same rounds through the thread's scratch arena (`bumpdown::scratch`).
#[no_mangle]
#[inline(never)]
pub fn bumpdown_probe_scratch_enter_exit(n: u64, v: u64) {
    for _ in 0..n {
        bumpdown::scratch(|s| {
            for _ in 0..4 {
                black_box(s.alloc(v));
            }
        });
    }
}

/// `VmArena` bumps upwards; its fast path has the same shape.
#[no_mangle]
#[inline(never)]
pub fn bumpdown_probe_vm_alloc_u64(arena: &bumpdown::VmArena, v: u64) -> &mut u64 {
    arena.alloc(v)
}

#[no_mangle]
#[inline(never)]
pub fn bumpdown_probe_vm_alloc_u32(arena: &bumpdown::VmArena, v: u32) -> &mut u32 {
    arena.alloc(v)
}

#[no_mangle]
#[inline(never)]
pub fn bumpdown_probe_vm_alloc_u8(arena: &bumpdown::VmArena, v: u8) -> &mut u8 {
    arena.alloc(v)
}

fn main() {
    // `enter-exit <scope|guard|scratch> <rounds>`: only those rounds, for an instruction counter.
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [mode, kind, rounds] = &args[..] {
        assert_eq!(mode, "enter-exit");
        let rounds: u64 = rounds.parse().expect("rounds");
        let mut arena = Arena::with_capacity(4096);
        match kind.as_str() {
            "scope" => bumpdown_probe_scope_enter_exit(&mut arena, black_box(rounds), black_box(7)),
            "guard" => bumpdown_probe_guard_enter_exit(&mut arena, black_box(rounds), black_box(7)),
            "scratch" => bumpdown_probe_scratch_enter_exit(black_box(rounds), black_box(7)),
            _ => panic!("unknown probe {kind}"),
        }
        return;
    }
    let arena = Arena::new();
    run_all(&arena);
    let arena8 = Arena::<8>::new_in(bumpdown::Global);
    black_box(bumpdown_probe_alloc_u32_min8(&arena8, 1));
    black_box(bumpdown_probe_alloc_3x_u64(&arena, 1));
    black_box(bumpdown_probe_alloc_slice_copy_u8(&arena, b"probe"));
    black_box(bumpdown_probe_alloc_str(&arena, "probe"));
    let mut arena = Arena::new();
    bumpdown_probe_scope_loop_u64(&mut arena, 3);
    bumpdown_probe_scope_enter_exit(&mut arena, 3, 1);
    bumpdown_probe_guard_enter_exit(&mut arena, 3, 1);
    bumpdown_probe_scratch_enter_exit(3, 1);
    arena.scope(|s| black_box(*bumpdown_probe_scope_alloc_u64(s, 1)));
    let vm = bumpdown::VmArena::new(1 << 20);
    black_box(bumpdown_probe_vm_alloc_u64(&vm, 1));
    black_box(bumpdown_probe_vm_alloc_u32(&vm, 1));
    black_box(bumpdown_probe_vm_alloc_u8(&vm, 1));
}
