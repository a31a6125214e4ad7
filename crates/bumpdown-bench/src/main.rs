//! `bumpdown-bench`: see the library's documentation, or run it with `--help`.

fn main() -> std::process::ExitCode {
    bumpdown_bench::app::main()
}
