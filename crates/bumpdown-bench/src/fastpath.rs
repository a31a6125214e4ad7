//! The fast-path code section: how many instructions and conditional branches each
//! contender's allocation call compiles to, read from this very binary.
//!
//! Every (contender, call) pair has a probe below: an `#[inline(never)]` function
//! with an exported name that makes the call through [`Handle`], exactly as the
//! speed table's kernels do, so it is the same code. bumpdown's scope handle
//! (`&Scope` inside `arena.scope(..)`) has probes of its own, and so has the C API:
//! build.rs compiles `bumpdown-c`'s `tests/c/probe_fast_path.c` (the probes its own
//! test counts) at -O2 into this binary, as is and with `BD_NO_NULL_CHECK`. At report
//! time the binary disassembles itself with `objdump` and counts, from each probe's
//! entry, the instructions up to the first `ret` (the path an allocation that fits
//! takes, when the compiler lays the fast path out first) and the conditional jumps
//! among them, C and Rust alike, with `bumpdown-disasm` (the tests of `bumpdown` and
//! `bumpdown-c` count their probes with it too). No `objdump`, no numbers: the section
//! says so instead.

use std::fmt::Write;
use std::hint::black_box;

use bumpdown_disasm::{callee, is_conditional_branch, is_register_save, Listing};
use serde::{Deserialize, Serialize};

use crate::contenders::{Contender, Handle};
use crate::progress::{Phase, Run};
use crate::section::{self, prose, Context};
use crate::table::{distinct, grid};

/// The calls measured, in table order.
pub const CALLS: [&str; 6] =
    ["alloc::<u8>", "alloc::<u32>", "alloc::<u64>", "alloc::<u128>", "alloc_slice_copy::<u8>", "alloc_str"];

/// The probe functions of each call in [`CALLS`], by the name their symbols end in.
const PROBES: [&str; 6] = ["alloc_u8", "alloc_u32", "alloc_u64", "alloc_u128", "alloc_slice_copy_u8", "alloc_str"];

/// The probes of one column in a module of its own: for each call of [`CALLS`], an
/// `#[inline(never)]` function exported as `bumpdown_bench_probe_<key>_<call>` that
/// makes the call through `$via` ([`Handle`], as the speed table's kernels do, so it is
/// the same code). `run` calls every probe once (so each is really used) through the
/// handle that `$with` passes to `call_all`, and returns the column's name and symbols.
macro_rules! probes {
    ($module:ident, $key:literal, $column:expr, $handle:ty, $via:ident, $with:expr) => {
        pub(super) mod $module {
            use super::*;

            probes!(@fns $key, $handle, $via, [
                alloc_u8(v: u8) -> u8 = alloc;
                alloc_u32(v: u32) -> u32 = alloc;
                alloc_u64(v: u64) -> u64 = alloc;
                alloc_u128(v: u128) -> u128 = alloc;
                alloc_slice_copy_u8(v: &[u8]) -> [u8] = alloc_slice_copy;
                alloc_str(v: &str) -> str = alloc_str;
            ]);

            fn call_all<'a>(h: $handle) {
                black_box(alloc_u8(black_box(h), 1));
                black_box(alloc_u32(black_box(h), 2));
                black_box(alloc_u64(black_box(h), 3));
                black_box(alloc_u128(black_box(h), 4));
                black_box(alloc_slice_copy_u8(black_box(h), b"probe"));
                black_box(alloc_str(black_box(h), "probe"));
            }

            pub fn run() -> (&'static str, [Result<String, String>; 6]) {
                $with;
                ($column, PROBES.map(|call| Ok(format!("bumpdown_bench_probe_{}_{call}", $key))))
            }
        }
    };
    (@fns $key:literal, $handle:ty, $via:ident, [$($name:ident($v:ident: $arg:ty) -> $out:ty = $call:ident;)*]) => {$(
        #[export_name = concat!("bumpdown_bench_probe_", $key, "_", stringify!($name))]
        #[inline(never)]
        fn $name<'a>(h: $handle, $v: $arg) -> &'a mut $out {
            $via::$call(h, $v)
        }
    )*};
}

/// The probes of a contender, through `&'a $arena`.
macro_rules! contender_probes {
    ($module:ident, $arena:ty, $key:literal) => {
        probes!($module, $key, <$arena as Contender>::NAME, &'a $arena, Handle, {
            call_all(&<$arena as Contender>::with_capacity(4096))
        });
    };
}

// The scope handle's probes: the calls through `&Scope`, which is only reachable inside
// `arena.scope(..)`, hence the probes take it as an argument.
probes!(bumpdown_scope, "scope", SCOPE, &'a bumpdown::Scope<'_, '_>, Handle, {
    bumpdown::Arena::with_capacity(4096).scope(|s| call_all(s))
});

/// `BumpGlobal`'s probes: each call as a `Box` or `String` makes it when `BumpGlobal` is
/// the `#[global_allocator]`, through `GlobalAlloc::alloc` on the `static` itself, as a
/// program's allocations reach it (so its constant settings fold away; the handle the
/// probes take, for the same signature as the others, is not read), then the value
/// written or the bytes copied.
/// Its windows are neither populated nor backed by huge pages, so that the probes fault
/// in no memory of the bench's process; both settings are read only when a window is
/// taken, off the fast path.
/// The calls are this module's own functions, not a [`Handle`]: a trait impl would make
/// `GLOBAL` reachable from other crates, and the probes would load its address from the
/// GOT instead of computing it.
// Handing out `&mut` to fresh blocks from `&BumpGlobal` is what an allocator does.
#[allow(clippy::mut_from_ref)]
mod global_probes {
    use super::*;
    use bumpdown_global::BumpGlobal;
    use std::alloc::{handle_alloc_error, GlobalAlloc, Layout};

    static GLOBAL: BumpGlobal = BumpGlobal::new().populate(false).huge_pages(false);

    /// A block for `layout` (of non-zero size), or the allocation-error handler.
    #[inline(always)]
    fn block(layout: Layout) -> *mut u8 {
        // SAFETY: every caller's layout has a non-zero size.
        let p = unsafe { GLOBAL.alloc(layout) };
        if p.is_null() {
            handle_alloc_error(layout)
        }
        p
    }

    /// `Box::new(v)`, leaked.
    #[inline(always)]
    fn alloc<T>(_: &BumpGlobal, v: T) -> &mut T {
        const { assert!(size_of::<T>() > 0, "`GlobalAlloc::alloc` takes no zero-size layout") };
        let p = block(Layout::new::<T>()).cast::<T>();
        // SAFETY: a fresh block of `T`'s layout, ours alone, never freed.
        unsafe {
            p.write(v);
            &mut *p
        }
    }

    /// `Box::<[u8]>::from(v)`, leaked: an empty slice takes no block.
    #[inline(always)]
    fn alloc_slice_copy<'a>(_: &'a BumpGlobal, v: &[u8]) -> &'a mut [u8] {
        if v.is_empty() {
            return &mut [];
        }
        // A slice's length never makes an array layout of bytes overflow.
        let p = block(Layout::array::<u8>(v.len()).unwrap_or_else(|_| unreachable!()));
        // SAFETY: a fresh block of `v.len()` bytes, ours alone, never freed; `v` is
        // another allocation.
        unsafe {
            p.copy_from_nonoverlapping(v.as_ptr(), v.len());
            core::slice::from_raw_parts_mut(p, v.len())
        }
    }

    #[inline(always)]
    fn alloc_str<'a>(g: &'a BumpGlobal, v: &str) -> &'a mut str {
        // SAFETY: the bytes of a `str`, copied: still UTF-8.
        unsafe { core::str::from_utf8_unchecked_mut(alloc_slice_copy(g, v.as_bytes())) }
    }

    probes!(probes, "global", GLOBAL_COLUMN, &'a BumpGlobal, super, call_all(&GLOBAL));
}

/// Defines the calls of one compilation of the C probes: the declarations of the
/// symbols `$u8` .. `$copy` (see `tests/c/probe_fast_path.c` in `bumpdown-c`) and a
/// `run` that calls each once on an arena from `$create`. The arena handle is opaque
/// to this side, hence `c_void`.
#[cfg(bumpdown_bench_c_probes)]
macro_rules! c_probes {
    ($module:ident, $create:expr, $destroy:path, [$u8:ident, $u32:ident, $u64:ident, $u128:ident, $copy:ident]) => {
        pub(super) mod $module {
            use super::*;
            use std::ffi::c_void;

            unsafe extern "C" {
                fn $u8(arena: *mut c_void, v: u8) -> *mut u8;
                fn $u32(arena: *mut c_void, v: u32) -> *mut u32;
                fn $u64(arena: *mut c_void, v: u64) -> *mut u64;
                fn $u128(arena: *mut c_void, v: u128) -> *mut u128;
                fn $copy(arena: *mut c_void, src: *const u8, n: usize) -> *mut u8;
            }

            /// Calls every probe once and returns the symbol names, in [`CALLS`]
            /// order; the C API has no inline `alloc_str` (`bd_strdup` is a call).
            pub fn run() -> [Result<String, String>; 6] {
                let src = b"probe";
                // SAFETY: the arena comes from its create function, is checked not to
                // be NULL, and is destroyed once, last; every probe takes a live arena
                // (and the copy a readable source of `n` bytes) and returns NULL or a
                // block of the arena's, which is only passed to `black_box`.
                unsafe {
                    let handle = $create;
                    let arena: *mut c_void = handle.cast();
                    assert!(!arena.is_null(), "the C API could not create an arena");
                    black_box($u8(black_box(arena), 1));
                    black_box($u32(black_box(arena), 2));
                    black_box($u64(black_box(arena), 3));
                    black_box($u128(black_box(arena), 4));
                    black_box($copy(black_box(arena), src.as_ptr(), src.len()));
                    $destroy(handle);
                }
                let symbol = |name: &str| Ok(name.to_owned());
                [
                    symbol(stringify!($u8)),
                    symbol(stringify!($u32)),
                    symbol(stringify!($u64)),
                    symbol(stringify!($u128)),
                    symbol(stringify!($copy)),
                    Err(NO_C_STR.to_owned()),
                ]
            }
        }
    };
}

#[cfg(bumpdown_bench_c_probes)]
c_probes!(
    c_arena,
    bumpdown_c::ffi::bd_arena_create(),
    bumpdown_c::ffi::bd_arena_destroy,
    [bd_probe_u8, bd_probe_u32, bd_probe_u64, bd_probe_u128, bd_probe_copy]
);
#[cfg(bumpdown_bench_c_probes)]
c_probes!(
    c_arena_nonnull,
    bumpdown_c::ffi::bd_arena_create(),
    bumpdown_c::ffi::bd_arena_destroy,
    [bd_probe_u8_nonnull, bd_probe_u32_nonnull, bd_probe_u64_nonnull, bd_probe_u128_nonnull, bd_probe_copy_nonnull]
);
#[cfg(bumpdown_bench_c_probes)]
c_probes!(
    c_vm,
    bumpdown_c::vm::bd_vm_create(1 << 20),
    bumpdown_c::vm::bd_vm_destroy,
    [bd_probe_vm_u8, bd_probe_vm_u32, bd_probe_vm_u64, bd_probe_vm_u128, bd_probe_vm_copy]
);

/// Column of the scope handle's probes.
pub const SCOPE: &str = "bumpdown Scope";
/// Column of `BumpGlobal`'s probes.
pub const GLOBAL_COLUMN: &str = "BumpGlobal";
/// Column of the C API's `bd_alloc`, default header.
pub const C_ALLOC: &str = "C bd_alloc";
/// Column of `bd_alloc` with `BD_NO_NULL_CHECK` defined.
pub const C_ALLOC_NONNULL: &str = "C bd_alloc, BD_NO_NULL_CHECK";
/// Column of the C API's `bd_vm_alloc`, default header.
pub const C_VM_ALLOC: &str = "C bd_vm_alloc";
/// Why a C column has no `alloc_str` cell.
const NO_C_STR: &str = "no inline counterpart in C: `bd_strdup` is a call into the library";

/// How the C probes were built: the C compiler, or why they were not (build.rs).
pub const C_BUILD: &str = env!("BUMPDOWN_BENCH_C_PROBES");
/// Whether the C probes are in this binary.
pub const C_BUILT: bool = cfg!(bumpdown_bench_c_probes);

/// The C columns: their names and each call's symbol, or why there is none.
fn c_columns() -> Vec<(&'static str, [Result<String, String>; 6])> {
    #[cfg(bumpdown_bench_c_probes)]
    let sets = [c_arena::run(), c_arena_nonnull::run(), c_vm::run()];
    #[cfg(not(bumpdown_bench_c_probes))]
    let sets: [[Result<String, String>; 6]; 3] =
        std::array::from_fn(|_| std::array::from_fn(|_| Err(format!("C probes not built: {C_BUILD}"))));
    [C_ALLOC, C_ALLOC_NONNULL, C_VM_ALLOC].into_iter().zip(sets).collect()
}

contender_probes!(bumpdown_arena, bumpdown::Arena, "bumpdown");
contender_probes!(bumpdown_facade, bumpdown_bumpalo::Bump, "facade");
contender_probes!(bumpdown_vm, bumpdown::VmArena, "vmarena");
contender_probes!(bumpdown_sync, bumpdown::SyncArena, "syncarena");
contender_probes!(stumpalo_arena, stumpalo::Arena, "stumpalo");
contender_probes!(bumpalo_bump, bumpalo::Bump, "bumpalo");
contender_probes!(bump_scope_bump, bump_scope::Bump, "bump_scope");
contender_probes!(blink, blink_alloc::Blink, "blink");

/// One probe's straight line.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Probe {
    pub contender: String,
    /// Which call (an entry of [`CALLS`]).
    pub call: String,
    /// Instructions from the entry up to and including the first `ret`, but for the
    /// [`register_saves`](Self::register_saves); 0 if the probe could not be read (the
    /// listing then holds the reason).
    pub instructions: usize,
    /// Conditional jumps among them.
    pub branches: usize,
    /// Instructions on the way that only serve a call (register saves and stack
    /// alignment, see `bumpdown_disasm::is_register_save`), counted apart.
    pub register_saves: usize,
    /// What the `call`s among them call (work not inlined, such as `memcpy`).
    pub callees: Vec<String>,
    pub listing: Vec<String>,
}

/// The section's outcome.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum FastPath {
    /// Every probe, contender by contender.
    Counted(Vec<Probe>),
    /// Why there are no counts.
    Unavailable(String),
}

/// Runs every probe once, disassembles this executable and counts.
pub fn measure(run: &Run) -> FastPath {
    run.section(Phase::FastPath, 2);
    run.step("probes");
    let mut sets = vec![
        bumpdown_arena::run(),
        bumpdown_scope::run(),
        bumpdown_facade::run(),
        bumpdown_vm::run(),
        bumpdown_sync::run(),
        global_probes::probes::run(),
        stumpalo_arena::run(),
        bumpalo_bump::run(),
        bump_scope_bump::run(),
        blink::run(),
    ];
    sets.extend(c_columns());
    run.step("objdump");
    let outcome = disassemble().map(|asm| {
        let mut probes = Vec::new();
        for (contender, symbols) in &sets {
            for (call, symbol) in CALLS.iter().zip(symbols) {
                // Shown as "—" with the reason in the listings.
                let probe = match symbol.as_ref().map_err(Clone::clone).and_then(|s| asm.straight_line(s)) {
                    Ok(listing) => count(contender, call, listing),
                    Err(why) => Probe {
                        contender: contender.to_string(),
                        call: call.to_string(),
                        listing: vec![why],
                        ..Probe::default()
                    },
                };
                probes.push(probe);
            }
        }
        probes
    });
    match outcome {
        Ok(probes) => FastPath::Counted(probes),
        Err(why) => FastPath::Unavailable(why),
    }
}

/// The table's columns: the contenders of `probes`, in order.
pub fn columns(probes: &[Probe]) -> Vec<&str> {
    distinct(probes.iter().map(|p| p.contender.as_str()))
}

/// Counts one probe's straight line, the same way for C and Rust.
fn count(contender: &'static str, call: &'static str, listing: Vec<String>) -> Probe {
    let register_saves = listing.iter().filter(|i| is_register_save(i)).count();
    Probe {
        contender: contender.to_owned(),
        call: call.to_owned(),
        instructions: listing.len() - register_saves,
        branches: listing.iter().filter(|i| is_conditional_branch(i)).count(),
        register_saves,
        callees: listing.iter().filter(|i| i.starts_with("call")).map(|i| callee(i)).collect(),
        listing,
    }
}

/// This executable's disassembly.
fn disassemble() -> Result<Listing, String> {
    if !cfg!(target_arch = "x86_64") {
        return Err("the counts are taken on x86-64 only".to_owned());
    }
    let exe = std::env::current_exe().map_err(|e| format!("cannot find own executable: {e}"))?;
    Listing::of(&exe).map_err(|why| format!("{why} to get this section"))
}

impl section::Section for FastPath {
    fn markdown(&self, md: &mut String, cx: &Context) {
        let _ = writeln!(md, "## Fast path: instructions per allocation\n");
        let probes = match self {
            FastPath::Counted(probes) => probes,
            FastPath::Unavailable(why) => {
                let _ = writeln!(md, "Not measured: {why}.\n");
                return;
            }
        };
        md.push_str(&prose(
            "fast_path",
            &[("scope", &SCOPE), ("facade", &<bumpdown_bumpalo::Bump as Contender>::NAME)],
        ));
        let names = columns(probes);
        // Runs stored before the column existed render without its paragraph.
        if names.contains(&GLOBAL_COLUMN) {
            md.push_str(&prose("fast_path_global", &[("global", &GLOBAL_COLUMN)]));
        }
        c_columns_note(md, cx.c_probes);
        let cell = |p: &Probe| {
            let calls: String = p.callees.iter().map(|c| format!(" + `{c}`")).collect();
            let saves = if p.register_saves > 0 { format!(" (+{})", p.register_saves) } else { String::new() };
            format!("{} / {}{calls}{saves}", p.instructions, p.branches)
        };
        let rows = CALLS.map(|call| {
            let probe =
                |name: &&str| probes.iter().find(|p| p.call == call && p.contender == *name && p.instructions > 0);
            (format!("`{call}`"), names.iter().map(|name| probe(name).map(cell)).collect())
        });
        grid(md, "call", &names, rows);
        if !cx.readme {
            let _ = writeln!(md, "The instructions of every probe are in `{LISTINGS_FILE}`, beside this report.\n");
        }
    }
}

/// The file beside the report that holds the fast-path probes' disassembly: hundreds of
/// lines that no reader of the tables wants on the terminal.
pub const LISTINGS_FILE: &str = "fast-path-listings.md";

/// The disassembly of every fast-path probe, as markdown, or `None` when the section was
/// not measured.
pub fn listings(fast_path: Option<&FastPath>) -> Option<String> {
    let Some(FastPath::Counted(probes)) = fast_path else { return None };
    let mut md = String::from("# Fast-path probes: the instructions counted\n\n");
    for p in probes {
        let _ = writeln!(md, "{} `{}`:\n\n```asm\n{}\n```\n", p.contender, p.call, p.listing.join("\n"));
    }
    Some(md)
}

/// What the fast-path table's C columns hold, or why they are empty (`c_probes`: were
/// they built, and by which compiler or why not).
fn c_columns_note(md: &mut String, (built, build): &(bool, String)) {
    if *built {
        md.push_str(&prose(
            "fast_path_c",
            &[("compiler", &build), ("alloc", &C_ALLOC), ("nonnull", &C_ALLOC_NONNULL), ("vm", &C_VM_ALLOC)],
        ));
    } else {
        let _ = writeln!(md, "The C columns are empty: {build}.\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_saves_are_counted_apart() {
        let listing = ["push rbx", "mov rax,QWORD PTR [rdi]", "mov rbx,rsi", "jb 10", "mov QWORD PTR [rax],rbx"];
        let p = count(
            "c",
            "alloc::<u64>",
            listing.iter().map(|i| (*i).to_owned()).chain(["pop rbx".to_owned(), "ret".to_owned()]).collect(),
        );
        assert_eq!((p.instructions, p.branches, p.register_saves), (4, 1, 3));
        assert!(p.callees.is_empty());
    }

    /// The probes are in this test binary too (it is built from the same code), so
    /// with `objdump` present the section can be checked end to end. Tests are built
    /// with less optimisation than the report, so a probe may end in a tail jump
    /// here instead of a `ret`; but every one must be found.
    #[test]
    #[cfg_attr(miri, ignore = "runs objdump")]
    fn every_probe_is_found_and_counted_up_to_its_ret() {
        let run = crate::progress::Run::hidden(vec![crate::progress::Planned { section: Phase::FastPath, secs: 1.0 }]);
        match measure(&run) {
            FastPath::Counted(probes) => {
                // The contenders, the scope handle, the bumpalo facade, `BumpGlobal`
                // and three C columns.
                let expected = crate::contenders::names().len() + 6;
                assert_eq!(probes.len(), CALLS.len() * expected);
                assert_eq!(columns(&probes).len(), expected);
                for p in &probes {
                    let what = format!("{} {}: {:?}", p.contender, p.call, p.listing);
                    if p.instructions == 0 {
                        let c_reason = p.contender.starts_with("C ")
                            && (p.listing[0] == NO_C_STR || p.listing[0].starts_with("C probes not built"));
                        assert!(p.listing[0].contains("no `ret`") || c_reason, "{what}");
                    } else {
                        assert!(p.instructions >= 2, "{what}");
                        assert!(p.listing.last().is_some_and(|i| i.starts_with("ret")), "{what}");
                    }
                }
                assert!(probes.iter().any(|p| p.instructions > 0), "no probe was counted");
                // The C probes are compiled at -O2 in tests too: with a C compiler,
                // every one but `alloc_str` ends in a `ret`.
                if C_BUILT {
                    let c = probes.iter().filter(|p| p.contender.starts_with("C ") && p.call != "alloc_str");
                    for p in c {
                        assert!(p.instructions > 0, "{} {}: {:?}", p.contender, p.call, p.listing);
                    }
                }
            }
            FastPath::Unavailable(why) => eprintln!("SKIPPED: {why}"),
        }
    }
}
