//! The `trumansh` binary: the command line is parsed and run by the library's `cli` module.

fn main() -> std::process::ExitCode {
    trumansh::cli::main()
}
