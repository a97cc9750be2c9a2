//! The `oxmcp` binary: the command line of [`oxmcp_cli`].

fn main() {
    std::process::exit(oxmcp_cli::run(std::env::args_os()));
}
