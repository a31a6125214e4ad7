//! The inline fast path of `bumpdown.h`, as gcc -O2 compiles it, stays a short straight
//! line: this test compiles `tests/c/probe_fast_path.c` (as is, and with
//! `BD_NO_NULL_CHECK`), disassembles it with `objdump`, and counts each probe's
//! instructions and conditional branches from its entry up to its first `ret`.
//!
//! Not counted: `push`/`pop` of callee-saved registers, the `mov` that parks an
//! argument in one, and the `sub rsp`/`add rsp` that align the stack for a call. gcc
//! saves a register in the prologue for the slow path's `call`
//! (the value to store must survive it) instead of shrink-wrapping it into the slow
//! block, as LLVM does for the Rust probes; those instructions belong to the call.

#![cfg(all(target_arch = "x86_64", target_os = "linux"))]

use std::path::{Path, PathBuf};
use std::process::Command;

use bumpdown_disasm::{is_conditional_branch, is_register_save, Listing};

/// Compiles the probes with `defines` and returns the disassembly, or `None` (with a
/// message) when gcc or objdump is missing.
fn disassembly(defines: &[&str], name: &str) -> Option<Listing> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let object = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}.o"));
    let compiled = Command::new("gcc")
        .args(["-std=c99", "-O2", "-Wall", "-Wextra", "-pedantic", "-Werror", "-c"])
        .args(defines)
        .arg("-I")
        .arg(dir.join("include"))
        .arg(dir.join("tests/c/probe_fast_path.c"))
        .arg("-o")
        .arg(&object)
        .status();
    match compiled {
        Ok(status) => assert!(status.success(), "gcc failed to compile the probes"),
        Err(_) => {
            eprintln!("SKIPPED: gcc is not available, the C fast path's instructions are not counted");
            return None;
        }
    }
    match Listing::of(&object) {
        Ok(listing) => Some(listing),
        Err(why) => {
            eprintln!("SKIPPED: {why}; the C fast path's instructions are not counted");
            None
        }
    }
}

struct Count {
    instructions: usize,
    branches: usize,
    top_loads: usize,
    prefetches: usize,
}

fn count(asm: &Listing, symbol: &str) -> Count {
    let lines = asm.straight_line(symbol).unwrap();
    eprintln!("{symbol}:\n    {}", lines.join("\n    "));
    let counted: Vec<_> = lines.iter().filter(|i| !is_register_save(i)).collect();
    Count {
        instructions: counted.len(),
        branches: counted.iter().filter(|i| is_conditional_branch(i)).count(),
        top_loads: counted.iter().filter(|i| i.starts_with("mov") && i.ends_with(",QWORD PTR [rdi]")).count(),
        prefetches: counted.iter().filter(|i| i.starts_with("prefetch")).count(),
    }
}

/// (probe, instructions including `ret`, conditional branches) without the NULL check;
/// the NULL check adds a `test` and a branch to each. The `vm_` probes are the
/// virtual-memory arena's upward bump (`bd_vm_alloc`).
const BOUNDS: [(&str, usize, usize); 13] = [
    // load ptr, add, and, cmp end, jb, store ptr, sub (the block is the new ptr minus
    // the size: gcc computes it, where rustc folds it into the store's address), store
    // value, ret.
    ("u64", 9, 1),
    ("u32", 9, 1),
    // A 16-byte value takes two stores.
    ("u128", 10, 1),
    // No alignment step for bytes: the block is the old ptr.
    ("u8", 7, 1),
    // Seed 004's 64 bytes aligned to 16: no value stored.
    ("block64", 8, 1),
    // A run-time size: ptr rounded up, then the capacity compare (the rounding cannot
    // pass end), then p + size.
    ("runtime_size", 10, 1),
    // And a run-time count: the overflow check (copy, shift, branch) and the multiply
    // (a shift).
    ("array_u32", 14, 2),
    // The virtual-memory arena bumps up: load top, add, and, lea end, cmp committed, ja,
    // store top, store value, prefetch, ret. One more than down: the size and the
    // rounding cannot share one subtraction; and the prefetch 2 KiB ahead.
    ("vm_u64", 10, 1),
    ("vm_u32", 10, 1),
    ("vm_u128", 11, 1),
    // No alignment step for bytes: lea end, compare, store.
    ("vm_u8", 8, 1),
    // Seed 004's 64 bytes aligned to 16, no value stored.
    ("vm_block64", 9, 1),
    // A run-time size: committed - p compared with the size, then p + size.
    ("vm_runtime_size", 11, 1),
];

#[test]
#[cfg_attr(miri, ignore = "runs gcc and objdump")]
fn inline_fast_path_is_a_short_straight_line() {
    let Some(plain) = disassembly(&[], "probes") else { return };
    let Some(nonnull) = disassembly(&["-DBD_NO_NULL_CHECK"], "probes_nonnull") else { return };
    for (probe, insns, branches) in BOUNDS {
        let c = count(&nonnull, &format!("bd_probe_{probe}_nonnull"));
        assert!(c.instructions <= insns, "{probe} (no NULL check): {} instructions > {insns}", c.instructions);
        assert_eq!(c.branches, branches, "{probe} (no NULL check): conditional branches");
        assert_eq!(c.top_loads, 1, "{probe} (no NULL check): loads of top");
        let prefetches = usize::from(probe.starts_with("vm_"));
        assert_eq!(c.prefetches, prefetches, "{probe} (no NULL check): prefetches");

        let c = count(&plain, &format!("bd_probe_{probe}"));
        assert!(c.instructions <= insns + 2, "{probe}: {} instructions > {}", c.instructions, insns + 2);
        assert_eq!(c.branches, branches + 1, "{probe}: conditional branches");
        assert_eq!(c.top_loads, 1, "{probe}: loads of top");
    }
}

#[test]
#[cfg_attr(miri, ignore = "runs gcc and objdump")]
fn a_cursor_keeps_top_in_a_register() {
    for (defines, name, symbol) in [
        (&[][..], "probes", "bd_probe_cursor_loop"),
        (&["-DBD_NO_NULL_CHECK"][..], "probes_nonnull", "bd_probe_cursor_loop_nonnull"),
    ] {
        let Some(asm) = disassembly(defines, name) else { return };
        let body = asm.loop_body(symbol).unwrap();
        eprintln!("{symbol} loop body:\n    {}", body.join("\n    "));
        // bump (lea, and), compare with end, branch, keep the new ptr, the block (lea),
        // store the value, and the loop's own counter, compare and branch.
        assert!(body.len() <= 10, "{symbol}: loop body is {} instructions", body.len());
        let loads: Vec<_> = body.iter().filter(|i| i.contains(",QWORD PTR [")).collect();
        assert!(loads.is_empty(), "{symbol}: the loop reads memory: {loads:?}");
        let stores = body.iter().filter(|i| i.starts_with("mov QWORD PTR [")).count();
        assert_eq!(stores, 1, "{symbol}: the loop stores more than the values");
    }
}

#[test]
#[cfg_attr(miri, ignore = "runs gcc and objdump")]
fn a_vm_cursor_keeps_top_in_a_register() {
    for (defines, name, symbol) in [
        (&[][..], "probes", "bd_probe_vm_cursor_loop"),
        (&["-DBD_NO_NULL_CHECK"][..], "probes_nonnull", "bd_probe_vm_cursor_loop_nonnull"),
    ] {
        let Some(asm) = disassembly(defines, name) else { return };
        let body = asm.loop_body(symbol).unwrap();
        eprintln!("{symbol} loop body:\n    {}", body.join("\n    "));
        // add, and, lea end, compare with committed, branch, keep the new top, store the
        // value, the prefetch, and the loop's own counter, compare and branch.
        assert!(body.len() <= 12, "{symbol}: loop body is {} instructions", body.len());
        let loads: Vec<_> = body.iter().filter(|i| i.contains(",QWORD PTR [")).collect();
        assert!(loads.is_empty(), "{symbol}: the loop reads memory: {loads:?}");
        let stores = body.iter().filter(|i| i.starts_with("mov QWORD PTR [")).count();
        assert_eq!(stores, 1, "{symbol}: the loop stores more than the values");
    }
}

/// The default `bd_alloc` (with its NULL-arena check) in a loop that stops on NULL: the
/// check is out of the loop, whose body is the bump of `BD_NO_NULL_CHECK`.
#[test]
#[cfg_attr(miri, ignore = "runs gcc and objdump")]
fn the_null_check_leaves_the_loop() {
    let Some(plain) = disassembly(&[], "probes") else { return };
    let Some(nonnull) = disassembly(&["-DBD_NO_NULL_CHECK"], "probes_nonnull") else { return };
    let body = plain.loop_body("bd_probe_alloc_loop").unwrap();
    let unchecked = nonnull.loop_body("bd_probe_alloc_loop_nonnull").unwrap();
    eprintln!("bd_probe_alloc_loop loop body:\n    {}", body.join("\n    "));
    eprintln!("bd_probe_alloc_loop_nonnull loop body:\n    {}", unchecked.join("\n    "));
    // The arena lives in a callee-saved register across the slow call; whichever it is,
    // no `test` of it in the loop.
    assert!(!body.iter().any(|i| i.starts_with("test ")), "the NULL check is in the loop: {body:?}");
    assert_eq!(body.len(), unchecked.len(), "the checked loop is longer than the unchecked one");
    // load ptr, add, and, cmp end, branch, store ptr, the block (sub), store value,
    // counter, cmp, branch.
    assert!(body.len() <= 11, "loop body is {} instructions", body.len());
}
