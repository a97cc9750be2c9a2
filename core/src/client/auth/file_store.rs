//! [`FileTokenStore`]: tokens kept in a file, for desktop and command-line apps.

use std::io;
use std::path::{Path, PathBuf};

use super::token::{TokenStore, Tokens};
use super::AuthError;
#[cfg(test)]
use super::ClientCredentials;
use crate::BoxFuture;

/// Tokens kept in a JSON file that only the user can read (mode 0600 on Unix), so that an
/// app signed in once stays signed in across runs. The file is replaced whole on each save
/// (written beside it, then renamed), so a crash never leaves half of it; saving `None`
/// deletes it.
///
/// ```
/// use oxmcp::client::auth::{FileTokenStore, TokenStore};
///
/// # async fn run() {
/// let store = FileTokenStore::new(std::env::temp_dir().join("my-app-tokens.json"));
/// let tokens = store.load().await.unwrap();
/// # drop(tokens);
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct FileTokenStore {
    path: PathBuf,
}

impl FileTokenStore {
    /// Tokens kept at `path` (its directory is made when missing).
    pub fn new(path: impl Into<PathBuf>) -> FileTokenStore {
        FileTokenStore { path: path.into() }
    }

    /// Where the tokens are kept.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl TokenStore for FileTokenStore {
    fn load(&self) -> BoxFuture<'_, Result<Option<Tokens>, AuthError>> {
        Box::pin(async move {
            match tokio::fs::read(&self.path).await {
                Ok(bytes) => serde_json::from_slice(&bytes)
                    .map(Some)
                    .map_err(|e| AuthError::Store(format!("{} holds no tokens: {e}", self.path.display()))),
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(failed(&self.path, &e)),
            }
        })
    }

    fn save(&self, tokens: Option<Tokens>) -> BoxFuture<'_, Result<(), AuthError>> {
        Box::pin(async move {
            let path = self.path.clone();
            tokio::task::spawn_blocking(move || write(&path, tokens.as_ref()))
                .await
                .map_err(|e| AuthError::Store(e.to_string()))?
        })
    }
}

/// Replaces the file with `tokens`, or deletes it for `None`.
fn write(path: &Path, tokens: Option<&Tokens>) -> Result<(), AuthError> {
    let Some(tokens) = tokens else {
        return match std::fs::remove_file(path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(failed(path, &e)),
            _ => Ok(()),
        };
    };
    let text = serde_json::to_vec(tokens).map_err(|e| AuthError::Store(e.to_string()))?;
    if let Some(directory) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(directory).map_err(|e| failed(directory, &e))?;
    }
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options
        .open(&partial)
        .and_then(|mut file| io::Write::write_all(&mut file, &text).and_then(|()| file.sync_all()));
    written
        .and_then(|()| std::fs::rename(&partial, path))
        .map_err(|e| failed(path, &e))
}

fn failed(path: &Path, error: &io::Error) -> AuthError {
    AuthError::Store(format!("{}: {error}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn keeps_tokens_across_stores_readable_by_the_user_alone() {
        let directory = std::env::temp_dir().join(format!("oxmcp-file-store-{}", std::process::id()));
        let path = directory.join("nested").join("tokens.json");
        let store = FileTokenStore::new(&path);
        assert!(store.load().await.unwrap().is_none());
        let tokens = Tokens {
            access_token: "at".into(),
            token_type: "Bearer".into(),
            refresh_token: Some("rt".into()),
            scope: Some("notes:read".into()),
            expires_at: Some(std::time::SystemTime::now()),
            issuer: "https://as.example".into(),
            client: Some(ClientCredentials::new("registered").secret("s")),
        };
        store.save(Some(tokens.clone())).await.unwrap();
        assert_eq!(FileTokenStore::new(&path).load().await.unwrap(), Some(tokens));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        std::fs::write(&path, "not json").unwrap();
        assert!(matches!(store.load().await, Err(AuthError::Store(_))));
        store.save(None).await.unwrap();
        assert!(!path.exists());
        store.save(None).await.unwrap();
        std::fs::remove_dir_all(directory).unwrap();
    }
}
