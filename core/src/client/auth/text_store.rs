//! [`TextTokenStore`]: tokens kept by the app as one text, wherever it keeps secrets.

use std::future::Future;
use std::sync::Arc;

use super::token::{TokenStore, Tokens};
use super::AuthError;
use crate::{BoxError, BoxFuture};

type Load = Arc<dyn Fn() -> BoxFuture<'static, Result<Option<String>, BoxError>> + Send + Sync>;
type Save = Arc<dyn Fn(Option<String>) -> BoxFuture<'static, Result<(), BoxError>> + Send + Sync>;

/// Tokens kept by the app as one opaque text (their JSON) in a place of its choosing: the
/// iOS Keychain, the Android Keystore, the desktop keyring. `load` gives the text the last
/// `save` got (or `None`); `save` keeps a text, or forgets it for `None`.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use oxmcp::client::auth::TextTokenStore;
///
/// let kept = Arc::new(Mutex::new(None::<String>));
/// let (reader, writer) = (Arc::clone(&kept), Arc::clone(&kept));
/// let store = TextTokenStore::new(
///     move || {
///         let text = reader.lock().unwrap().clone();
///         async move { Ok::<_, std::io::Error>(text) }
///     },
///     move |text| {
///         *writer.lock().unwrap() = text;
///         async { Ok::<_, std::io::Error>(()) }
///     },
/// );
/// # drop(store);
/// ```
#[derive(Clone)]
pub struct TextTokenStore {
    load: Load,
    save: Save,
}

impl TextTokenStore {
    /// Tokens loaded with `load` and saved with `save`.
    pub fn new<L, LoadFut, S, SaveFut, E>(load: L, save: S) -> TextTokenStore
    where
        L: Fn() -> LoadFut + Send + Sync + 'static,
        LoadFut: Future<Output = Result<Option<String>, E>> + Send + 'static,
        S: Fn(Option<String>) -> SaveFut + Send + Sync + 'static,
        SaveFut: Future<Output = Result<(), E>> + Send + 'static,
        E: Into<BoxError>,
    {
        TextTokenStore {
            load: Arc::new(move || {
                let loaded = load();
                Box::pin(async move { loaded.await.map_err(Into::into) })
            }),
            save: Arc::new(move |text| {
                let saved = save(text);
                Box::pin(async move { saved.await.map_err(Into::into) })
            }),
        }
    }
}

impl TokenStore for TextTokenStore {
    fn load(&self) -> BoxFuture<'_, Result<Option<Tokens>, AuthError>> {
        let loaded = (self.load)();
        Box::pin(async move {
            let Some(text) = loaded.await.map_err(|e| AuthError::Store(e.to_string()))? else {
                return Ok(None);
            };
            serde_json::from_str(&text)
                .map(Some)
                .map_err(|e| AuthError::Store(format!("the stored tokens are unreadable: {e}")))
        })
    }

    fn save(&self, tokens: Option<Tokens>) -> BoxFuture<'_, Result<(), AuthError>> {
        let text = tokens.map(|tokens| serde_json::to_string(&tokens)).transpose();
        Box::pin(async move {
            let text = text.map_err(|e| AuthError::Store(e.to_string()))?;
            (self.save)(text).await.map_err(|e| AuthError::Store(e.to_string()))
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    #[tokio::test]
    async fn keeps_tokens_as_one_text() {
        let kept = Arc::new(Mutex::new(None::<String>));
        let (reader, writer) = (Arc::clone(&kept), Arc::clone(&kept));
        let store = TextTokenStore::new(
            move || {
                let text = reader.lock().unwrap().clone();
                async move { Ok::<_, std::io::Error>(text) }
            },
            move |text| {
                *writer.lock().unwrap() = text;
                async { Ok::<_, std::io::Error>(()) }
            },
        );
        assert!(store.load().await.unwrap().is_none());
        let tokens = Tokens {
            access_token: "at".into(),
            token_type: "Bearer".into(),
            refresh_token: None,
            scope: None,
            expires_at: None,
            issuer: "https://as.example".into(),
            client: None,
        };
        store.save(Some(tokens.clone())).await.unwrap();
        assert!(kept.lock().unwrap().as_deref().unwrap().contains("https://as.example"));
        assert_eq!(store.load().await.unwrap(), Some(tokens));
        *kept.lock().unwrap() = Some("{".into());
        assert!(matches!(store.load().await, Err(AuthError::Store(_))));
        store.save(None).await.unwrap();
        assert!(kept.lock().unwrap().is_none());
    }
}
