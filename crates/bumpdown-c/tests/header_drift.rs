//! `include/bumpdown.h` and the Rust side cannot drift apart: every `bd_*` function the
//! library exports is declared in the header with the same signature (and nothing else
//! is declared), the structs C passes have the same fields, the result codes and
//! constants the same values, and the two fields C bumps are the arena's `ptr` and
//! `end` (the virtual-memory arena's `top` and `committed`).

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use bumpdown_c::ffi::*;
use bumpdown_c::vm::*;

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

/// Collapses runs of whitespace and tightens `*`, so that equal C types compare equal.
fn normalize(ty: &str) -> String {
    let ty = ty.split_whitespace().collect::<Vec<_>>().join(" ");
    ty.replace(" *", "*").replace("* ", "*").replace('*', " *").trim().to_string()
}

/// The header without comments.
fn header() -> String {
    let text = read("include/bumpdown.h");
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("*/").expect("unterminated comment") + start + 2;
        rest = &rest[end..];
    }
    out.push_str(rest);
    out.lines().map(|l| l.split("//").next().unwrap()).collect::<Vec<_>>().join("\n")
}

/// The header without its inline function definitions (`BD_INLINE_ ... { ... }`).
fn header_without_inline() -> String {
    let mut text = header();
    // Definitions start a line with the macro; its own `#define`s do not.
    while let Some(start) = text.rfind("\nBD_INLINE_ ") {
        let open = start + text[start..].find('{').unwrap();
        let mut depth = 0;
        let mut end = open;
        for (i, c) in text[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                end = open + i + 1;
                break;
            }
        }
        text.replace_range(start..end, "");
    }
    text
}

/// Function declarations of the header (prototypes ending in `;`, not the inline
/// definitions): name -> (return type, parameter types).
fn header_functions() -> BTreeMap<String, (String, Vec<String>)> {
    let text = header_without_inline();
    let mut out = BTreeMap::new();
    for stmt in text.split(';') {
        let stmt = stmt.split('}').next_back().unwrap().trim();
        let stmt = stmt.lines().filter(|l| !l.trim_start().starts_with('#')).collect::<Vec<_>>().join(" ");
        let Some(open) = stmt.find("(") else { continue };
        let head = &stmt[..open];
        let Some(name) = head.split(|c: char| c.is_whitespace() || c == '*').next_back() else { continue };
        if !name.starts_with("bd_") || stmt.contains('{') || stmt.contains('=') {
            continue;
        }
        let ret = normalize(&head[..head.len() - name.len()]);
        let params = stmt[open + 1..stmt.rfind(')').unwrap()].trim();
        let params = if params == "void" {
            vec![]
        } else {
            params
                .split(',')
                .map(|p| {
                    // Drop the parameter's name: the last identifier.
                    let p = p.trim();
                    let cut = p.rfind(|c: char| !(c.is_alphanumeric() || c == '_')).map_or(0, |i| i + 1);
                    normalize(&p[..cut])
                })
                .collect()
        };
        out.insert(name.to_string(), (ret, params));
    }
    out
}

/// The C spelling of a Rust FFI type.
fn c_type(rust: &str) -> String {
    let rust = rust.trim();
    if let Some(inner) = rust.strip_prefix("*mut ") {
        return normalize(&format!("{} *", c_type(inner)));
    }
    if let Some(inner) = rust.strip_prefix("*const ") {
        return normalize(&format!("const {} *", c_type(inner)));
    }
    match rust {
        "c_void" | "()" => "void".into(),
        "c_char" => "char".into(),
        "c_int" => "int".into(),
        "usize" => "size_t".into(),
        "u64" => "uint64_t".into(),
        other => other.into(),
    }
}

/// The `extern "C"` functions of the Rust source: name -> (return type, parameter types),
/// in C spelling.
fn rust_functions() -> BTreeMap<String, (String, Vec<String>)> {
    let src = read("src/ffi.rs") + &read("src/vm.rs");
    let mut out = BTreeMap::new();
    for chunk in src.split("extern \"C\" fn ").skip(1) {
        let sig = chunk[..chunk.find('{').unwrap()].split_whitespace().collect::<Vec<_>>().join(" ");
        let open = sig.find('(').unwrap();
        let close = sig.rfind(')').unwrap();
        let name = sig[..open].trim().to_string();
        let params = sig[open + 1..close]
            .split(',')
            .filter(|p| !p.trim().is_empty())
            .map(|p| c_type(p.split_once(':').unwrap().1))
            .collect();
        let ret = sig[close + 1..].trim().strip_prefix("->").map_or("void".into(), c_type);
        out.insert(name, (ret, params));
    }
    out
}

#[test]
fn every_exported_function_is_declared_alike() {
    let rust = rust_functions();
    let header = header_functions();
    assert!(rust.len() >= 23, "parsed only {rust:?}");
    assert!(rust.contains_key("bd_vm_realloc_last"), "src/vm.rs not parsed");
    assert_eq!(rust, header, "src/ffi.rs (left) and include/bumpdown.h (right) disagree");
}

#[test]
#[cfg_attr(miri, ignore = "runs cargo and nm")]
fn the_library_exports_exactly_the_declared_functions() {
    let out = match Command::new("nm").args(["-g", "--defined-only"]).arg(common::static_lib()).output() {
        Ok(out) if out.status.success() => out,
        _ => {
            eprintln!("SKIPPED: nm is not available, exported symbols not checked");
            return;
        }
    };
    let exported: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .filter(|s| s.starts_with("bd_"))
        .map(String::from)
        .collect();
    let declared: Vec<String> = header_functions().into_keys().collect();
    let mut exported_sorted = exported.clone();
    exported_sorted.sort();
    exported_sorted.dedup();
    assert_eq!(exported_sorted, declared);
}

/// Field names and C types of `typedef struct NAME { ... } NAME;` in the header.
fn header_struct(name: &str) -> Vec<(String, String)> {
    let text = header();
    let start = text.find(&format!("typedef struct {name} {{")).unwrap_or_else(|| panic!("{name} not in header"));
    let body = &text[text[start..].find('{').unwrap() + start + 1..];
    let body = &body[..body.find('}').unwrap()];
    let mut fields = Vec::new();
    for decl in body.split(';').map(str::trim).filter(|d| !d.is_empty()) {
        let (decl, array) = match decl.split_once('[') {
            Some((d, n)) => (d.trim(), format!("[{}", n)),
            None => (decl, String::new()),
        };
        let cut = decl.rfind(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap() + 1;
        fields.push((decl[cut..].to_string(), format!("{}{array}", normalize(&decl[..cut]))));
    }
    fields
}

/// Field names and C types of `pub struct NAME { ... }` in the Rust source.
fn rust_struct(file: &str, name: &str) -> Vec<(String, String)> {
    let src = read(file);
    let start = src.find(&format!("pub struct {name} {{")).unwrap_or_else(|| panic!("{name} not in {file}"));
    let body = &src[src[start..].find('{').unwrap() + start + 1..];
    let body = &body[..body.find('}').unwrap()];
    body.lines()
        .map(str::trim)
        .filter(|l| l.starts_with("pub "))
        .map(|l| {
            let (field, ty) = l.trim_start_matches("pub ").trim_end_matches(',').split_once(':').unwrap();
            let ty = ty.trim();
            let ty = match ty.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
                Some(array) => {
                    let (elem, len) = array.split_once(';').unwrap();
                    let elem = elem.trim().trim_start_matches("MaybeUninit<").trim_end_matches('>');
                    format!("{}[{}]", c_type(elem), len.trim())
                }
                None => c_type(ty),
            };
            (field.trim().to_string(), ty)
        })
        .collect()
}

#[test]
fn structs_have_the_same_fields() {
    for (file, name) in [
        ("src/ffi.rs", "bd_options"),
        ("src/ffi.rs", "bd_stats"),
        ("src/checkpoint.rs", "bd_checkpoint"),
        ("src/vm.rs", "bd_vm_options"),
        ("src/vm.rs", "bd_vm_stats"),
    ] {
        let (rust, c) = (rust_struct(file, name), header_struct(name));
        assert!(!rust.is_empty());
        assert_eq!(rust, c, "{name}: Rust (left) and C (right) disagree");
    }
    assert_eq!(
        header_struct("bd_arena"),
        [("ptr".to_string(), "unsigned char *".to_string()), ("end".to_string(), "unsigned char *".to_string())]
    );
    assert_eq!(
        header_struct("bd_vm_arena"),
        [("top".to_string(), "unsigned char *".to_string()), ("committed".to_string(), "unsigned char *".to_string())]
    );
}

/// The value of `#define NAME ((size_t)VALUE)` or of `NAME = VALUE` in an enum.
fn header_constant(name: &str) -> usize {
    let text = header();
    let after = text.split(name).nth(1).unwrap_or_else(|| panic!("{name} not in header"));
    let digits: String =
        after.trim_start_matches(|c: char| !c.is_ascii_digit()).chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap()
}

#[test]
fn constants_agree() {
    for (name, value) in [
        ("BD_OK", BD_OK),
        ("BD_ERR_NULL", BD_ERR_NULL),
        ("BD_ERR_FOREIGN_CHECKPOINT", BD_ERR_FOREIGN_CHECKPOINT),
        ("BD_ERR_STALE_CHECKPOINT", BD_ERR_STALE_CHECKPOINT),
        ("BD_ERR_BAD_CHECKPOINT", BD_ERR_BAD_CHECKPOINT),
        ("BD_ERR_INTERNAL", BD_ERR_INTERNAL),
        ("BD_ERR_NOMEM", BD_ERR_NOMEM),
    ] {
        assert_eq!(header_constant(&format!("{name} =")), value as usize, "{name}");
    }
    assert_eq!(header_constant("define BD_MIN_BOTTOM"), bumpdown::bumping::MIN_BOTTOM);
    assert_eq!(header_constant("define BD_CHUNK_ALIGN"), bumpdown::bumping::CHUNK_ALIGN);
    assert_eq!(header_constant("define BD_VM_PREFETCH_AHEAD"), bumpdown::bumping::PREFETCH_AHEAD);
    for (name, value) in [
        ("BD_VM_NO_POPULATE", BD_VM_NO_POPULATE),
        ("BD_VM_HUGE_PAGES", BD_VM_HUGE_PAGES),
        ("BD_VM_KEEP_PAGES", BD_VM_KEEP_PAGES),
        ("BD_VM_RELEASE_ABOVE", BD_VM_RELEASE_ABOVE),
    ] {
        assert_eq!(header_constant(&format!("define {name} ")), value as usize, "{name}");
    }
}

/// The header's `bd_arena` as C sees it.
#[repr(C)]
struct CPrefix {
    ptr: *mut u8,
    end: *mut u8,
}

#[test]
fn c_prefix_is_the_arenas_ptr_and_end() {
    // SAFETY: handles from `bd_arena_create_with`, read as the header's prefix (what C
    // does), destroyed once at the end.
    unsafe {
        let opts = bd_options { initial_capacity: 1000, ..Default::default() };
        let handle = bd_arena_create_with(&opts);
        assert!(!handle.is_null());
        let arena: &bd_arena = &*handle;
        let prefix = handle.cast::<CPrefix>();
        let (ptr, end) = ((*prefix).ptr, (*prefix).end);
        assert!(ptr < end);
        assert_eq!(end as usize - ptr as usize, arena.chunk_capacity());
        // An allocation through the Rust API moves the word C reads as `ptr`, upwards.
        let p = arena.alloc(7u64) as *mut u64;
        assert_eq!((*prefix).ptr, p.cast::<u8>().add(8));
        assert_eq!(arena.chunk_capacity(), (*prefix).end as usize - (*prefix).ptr as usize);
        // And a bump C makes through the prefix is what Rust allocates above.
        (*prefix).ptr = (*prefix).ptr.add(16);
        let q = arena.alloc(1u8) as *mut u8;
        assert_eq!(q.add(1), (*prefix).ptr);
        assert_eq!(q, p.cast::<u8>().add(8 + 16));
        bd_arena_destroy(handle);

        // A fixed arena's handle has the same prefix.
        let mut buf = vec![0u64; 1024];
        let fixed = bd_arena_create_fixed(buf.as_mut_ptr().cast(), buf.len() * 8);
        assert!(!fixed.is_null());
        let prefix = fixed.cast::<CPrefix>();
        assert_eq!((*prefix).end as usize - (*prefix).ptr as usize, (*fixed).chunk_capacity());
        let p = bd_alloc_slow(fixed, 8, 8);
        assert_eq!((*prefix).ptr, p.cast::<u8>().add(8));
        bd_arena_destroy(fixed);
    }
}

/// The header's `bd_vm_arena` as C sees it.
#[repr(C)]
struct VmPrefix {
    top: *mut u8,
    committed: *mut u8,
}

#[test]
fn vm_prefix_is_the_arenas_top_and_committed() {
    let page_align = header_constant("define BD_VM_PAGE_ALIGN");
    // SAFETY: a handle from `bd_vm_create`, read and bumped through the header's prefix
    // (what C does, within top..committed), destroyed once at the end.
    unsafe {
        let handle = bd_vm_create(1 << 20);
        assert!(!handle.is_null());
        let vm: &bd_vm_arena = &*handle;
        let prefix = handle.cast::<VmPrefix>();
        // Nothing committed yet: an empty range, not at 0.
        assert_eq!((*prefix).top, (*prefix).committed);
        assert!(!(*prefix).top.is_null());
        // An allocation through the Rust API moves the word C reads as `top`, upwards.
        let p = vm.alloc(7u64) as *mut u64;
        assert_eq!((*prefix).top, p.cast::<u8>().add(8));
        assert_eq!(vm.chunk_capacity(), (*prefix).committed as usize - (*prefix).top as usize);
        assert_eq!(vm.allocated_bytes(), (*prefix).committed as usize - p as usize);
        // What the fast path relies on: `committed` is a multiple of BD_VM_PAGE_ALIGN and
        // at most PTRDIFF_MAX.
        assert_eq!((*prefix).committed as usize % page_align, 0);
        assert!((*prefix).committed as usize <= isize::MAX as usize);
        // A bump C makes through the prefix is where Rust allocates next.
        (*prefix).top = (*prefix).top.add(16);
        let q = vm.alloc(1u8) as *mut u8;
        assert_eq!(q, p.cast::<u8>().add(24));
        assert_eq!((*prefix).top, q.add(1));
        // The slow path keeps the invariant as it commits more.
        let big = bd_vm_alloc_slow(handle, 300_000, 8);
        assert!(!big.is_null());
        assert_eq!((*prefix).top, big.cast::<u8>().add(300_000));
        assert_eq!((*prefix).committed as usize % page_align, 0);
        bd_vm_destroy(handle);
    }
}
