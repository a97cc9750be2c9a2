//! The example client against the example server, as `make demo` runs them: the client
//! finishes, and prints each exchange in both eras.

use std::process::Command;

#[test]
fn the_example_client_talks_to_the_example_server_in_both_eras() {
    let output = Command::new(env!("CARGO_BIN_EXE_client"))
        .arg(env!("CARGO_BIN_EXE_server"))
        .output()
        .expect("the example client starts");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for expected in [
        "== Legacy era",
        "== Modern era",
        "Some(\"oxmcp-example\")",
        "\"text\":\"hello\"",
        "\"structuredContent\":{\"result\":5}",
        "Hello, ada!",
        "Please review this code:",
    ] {
        assert!(stdout.contains(expected), "no {expected} in:\n{stdout}");
    }
}
