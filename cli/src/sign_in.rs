//! `--oauth`: signing in to a protected server as a command-line app does. The user
//! authorizes in the browser, which comes back to a loopback address; the tokens (and the
//! client a sign-in registered) are kept in the user's config directory, one file per
//! server, readable by the user alone, and refreshed: later runs need no sign-in.

use std::io::IsTerminal;
use std::path::PathBuf;

use oxmcp::client::auth::{FileTokenStore, LoopbackRedirect, OAuthProvider};

use crate::browser;
use crate::failure::Failure;

/// The name the client registers under.
const CLIENT_NAME: &str = "oxmcp command line";

/// The OAuth client of a run against the server at `url`.
pub fn provider(url: &str) -> Result<OAuthProvider, Failure> {
    let redirect =
        LoopbackRedirect::bind(0).map_err(|e| Failure::Authorization(format!("no loopback listener: {e}")))?;
    let store = FileTokenStore::new(token_file(url)?);
    Ok(
        OAuthProvider::loopback(CLIENT_NAME, redirect, |authorization| async move {
            eprintln!("oxmcp: sign in at {authorization}");
            // At a terminal, open the browser for the user; a script reads the line above.
            if std::io::stderr().is_terminal() {
                browser::open(authorization.as_str());
            }
            Ok::<_, std::io::Error>(())
        })
        .token_store(store),
    )
}

/// Where the tokens for `url` are kept: `<config dir>/oxmcp/tokens/<url, made a file name>.json`.
fn token_file(url: &str) -> Result<PathBuf, Failure> {
    let config =
        dirs::config_dir().ok_or_else(|| Failure::Authorization("no config directory to keep tokens in".into()))?;
    let name: String = url
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    Ok(config.join("oxmcp").join("tokens").join(format!("{name}.json")))
}
