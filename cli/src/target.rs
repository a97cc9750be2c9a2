//! Where the server is: a URL, a command, or an entry of the `mcpServers` configs that
//! Claude Desktop, Claude Code, Cursor and VS Code keep.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::args::Target;
use crate::failure::Failure;

/// A server to connect to.
#[derive(Debug, Clone, PartialEq)]
pub enum Endpoint {
    /// A Streamable HTTP (or HTTP+SSE) URL, with headers of its own.
    Http {
        /// The endpoint's URL.
        url: String,
        /// Headers the config gives the server.
        headers: BTreeMap<String, String>,
    },
    /// A command serving stdio.
    Stdio {
        /// The program and its arguments.
        command: Vec<String>,
        /// Variables added to the environment.
        env: BTreeMap<String, String>,
        /// Where it runs.
        cwd: Option<PathBuf>,
    },
}

/// One entry of an `mcpServers` (or VS Code's `servers`) config.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
}

/// A config file's servers, under either key.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Config {
    #[serde(default)]
    mcp_servers: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    servers: BTreeMap<String, serde_json::Value>,
}

impl Endpoint {
    /// The server `target` names.
    pub fn of(target: &Target) -> Result<Endpoint, Failure> {
        if let Some(url) = &target.url {
            return Ok(Endpoint::Http {
                url: url.clone(),
                headers: BTreeMap::new(),
            });
        }
        if let Some(name) = &target.server {
            let files = match &target.config {
                Some(file) => vec![file.clone()],
                None => known_configs(),
            };
            return find(name, &files);
        }
        if !target.command.is_empty() {
            return Ok(Endpoint::Stdio {
                command: target.command.clone(),
                env: BTreeMap::new(),
                cwd: None,
            });
        }
        Err(Failure::Usage(
            "no server given: use --url URL, --server NAME, or a command after `--`".into(),
        ))
    }
}

/// The configs searched for `--server` without `--config`, the project's before the
/// user's: Claude Code (`.mcp.json`, `~/.claude.json`), Cursor (`.cursor/mcp.json`),
/// VS Code (`.vscode/mcp.json`, the user's `mcp.json`), Claude Desktop.
fn known_configs() -> Vec<PathBuf> {
    let mut files = vec![
        PathBuf::from(".mcp.json"),
        PathBuf::from(".cursor/mcp.json"),
        PathBuf::from(".vscode/mcp.json"),
    ];
    if let Some(home) = dirs::home_dir() {
        files.push(home.join(".claude.json"));
        files.push(home.join(".cursor/mcp.json"));
    }
    if let Some(config) = dirs::config_dir() {
        files.push(config.join("Code/User/mcp.json"));
        files.push(config.join("Claude/claude_desktop_config.json"));
    }
    files
}

/// The server `name` of the first of `files` that has it.
fn find(name: &str, files: &[PathBuf]) -> Result<Endpoint, Failure> {
    let mut searched = Vec::new();
    for file in files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        searched.push(file.display().to_string());
        let config: Config = serde_json::from_str(&text)
            .map_err(|e| Failure::Usage(format!("{} is not an mcpServers config: {e}", file.display())))?;
        if let Some(entry) = config.mcp_servers.get(name).or_else(|| config.servers.get(name)) {
            return endpoint_of(name, entry.clone(), file);
        }
    }
    let searched = if searched.is_empty() {
        "no config found".to_owned()
    } else {
        format!("searched {}", searched.join(", "))
    };
    Err(Failure::Usage(format!("no server named {name:?} ({searched})")))
}

/// The endpoint an entry describes.
fn endpoint_of(name: &str, entry: serde_json::Value, file: &Path) -> Result<Endpoint, Failure> {
    let invalid = |why: String| Failure::Usage(format!("server {name:?} in {}: {why}", file.display()));
    let entry: Entry = serde_json::from_value(entry).map_err(|e| invalid(e.to_string()))?;
    match (entry.command, entry.url) {
        (Some(program), None) => Ok(Endpoint::Stdio {
            command: std::iter::once(program).chain(entry.args).collect(),
            env: entry.env,
            cwd: entry.cwd,
        }),
        (None, Some(url)) => Ok(Endpoint::Http {
            url,
            headers: entry.headers,
        }),
        _ => Err(invalid("give either `command` or `url`".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(dir: &Path, file: &str, text: &str) -> PathBuf {
        let path = dir.join(file);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn entries_of_either_key_name_commands_or_urls() {
        let dir = tempfile::tempdir().unwrap();
        let desktop = config(
            dir.path(),
            "desktop.json",
            r#"{"mcpServers": {"notes": {"command": "python", "args": ["notes.py"], "env": {"A": "1"}}}}"#,
        );
        let vscode = config(
            dir.path(),
            "vscode.json",
            r#"{"servers": {"remote": {"type": "http", "url": "https://x.example/mcp", "headers": {"X-T": "a"}}}}"#,
        );
        let files = [dir.path().join("absent.json"), desktop, vscode];
        assert_eq!(
            find("notes", &files).unwrap(),
            Endpoint::Stdio {
                command: vec!["python".into(), "notes.py".into()],
                env: [("A".to_owned(), "1".to_owned())].into(),
                cwd: None,
            }
        );
        assert_eq!(
            find("remote", &files).unwrap(),
            Endpoint::Http {
                url: "https://x.example/mcp".into(),
                headers: [("X-T".to_owned(), "a".to_owned())].into(),
            }
        );
        let missing = find("other", &files).unwrap_err();
        assert!(matches!(&missing, Failure::Usage(m) if m.contains("desktop.json") && !m.contains("absent")));
    }

    #[test]
    fn an_entry_without_command_or_url_is_a_usage_error() {
        let dir = tempfile::tempdir().unwrap();
        let file = config(dir.path(), "c.json", r#"{"mcpServers": {"x": {"args": []}}}"#);
        assert!(matches!(find("x", &[file]), Err(Failure::Usage(_))));
    }
}
