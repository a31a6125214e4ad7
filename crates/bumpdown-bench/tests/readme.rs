//! The README's benchmark section is the stored run under `docs/bench/`, rendered: its
//! numbers cannot drift from the file they claim to come from.

use std::path::Path;
use std::process::Command;

use bumpdown_bench::{README_END, README_IMAGES, STORED_RUN};

#[test]
fn the_readmes_benchmark_section_is_the_stored_run_rendered() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let stored = format!("{README_IMAGES}{STORED_RUN}");
    let out = Command::new(env!("CARGO_BIN_EXE_bumpdown-bench"))
        .args(["render", "--readme", &stored])
        .current_dir(&root)
        .output()
        .expect("the report binary runs");
    assert!(out.status.success(), "render failed: {}", String::from_utf8_lossy(&out.stderr));
    let rendered = String::from_utf8(out.stdout).expect("UTF-8");
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let start = readme.find("## Benchmarks\n").expect("README has a '## Benchmarks' section");
    let end = readme[start..].find(README_END).expect("README's section has its end marker") + start;
    let section = &readme[start..end + README_END.len()];
    let rendered = rendered.trim_end();
    if section != rendered {
        let line = section.lines().zip(rendered.lines()).position(|(a, b)| a != b);
        panic!(
            "README.md's benchmark section differs from `render --readme {stored}` (first differing line: {line:?}); \
             regenerate it: cargo run --release -p bumpdown-bench -- render --readme {stored}"
        );
    }
    // Every chart the section links is committed beside the stored run.
    for link in section.split(&format!("]({README_IMAGES}")).skip(1) {
        let file = &link[..link.find(')').expect("a closed link")];
        assert!(root.join(README_IMAGES).join(file).is_file(), "{README_IMAGES}{file} is linked but not committed");
    }
}
