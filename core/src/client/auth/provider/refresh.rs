//! Keeping the tokens fresh: the refresh token grant, and the current tokens refreshed
//! first when they have expired.

use super::{OAuthProvider, Session};
use crate::client::auth::discovery::Discovered;
use crate::client::auth::token::{request_tokens, Grant, Tokens};
use crate::client::auth::AuthError;

impl OAuthProvider {
    /// New tokens for `prior`'s refresh token, kept in the store; `None` when there is
    /// no refresh token or the server refused it.
    pub(super) async fn refresh(
        &self,
        session: &mut Session,
        discovered: &Discovered,
        prior: &Tokens,
    ) -> Option<Tokens> {
        let refresh_token = prior.refresh_token.as_deref()?;
        let client = session.clients.get(&discovered.server.issuer)?.clone();
        let grant = Grant::RefreshToken(refresh_token);
        let outcome = request_tokens(
            &self.inner.config.http,
            &discovered.server,
            &client,
            grant,
            &discovered.resource,
            None,
            self.dpop_for(&discovered.server),
        )
        .await;
        match outcome {
            Ok(mut tokens) => {
                // A server that rotates nothing keeps the old refresh token valid.
                tokens.refresh_token = tokens.refresh_token.or_else(|| prior.refresh_token.clone());
                tokens.scope = tokens.scope.or_else(|| prior.scope.clone());
                tokens.client = prior.client.clone();
                self.inner.config.store.save(Some(tokens.clone())).await.ok()?;
                Some(tokens)
            }
            Err(error) => {
                tracing::debug!(%error, "refreshing the access token failed");
                None
            }
        }
    }

    /// The current tokens, refreshed first when they have expired.
    pub(super) async fn current_tokens(&self) -> Result<Option<Tokens>, AuthError> {
        let Some(tokens) = self.inner.config.store.load().await? else {
            return Ok(None);
        };
        if !tokens.expired() || tokens.refresh_token.is_none() {
            return Ok(Some(tokens));
        }
        let mut session = self.inner.session.lock().await;
        // Another request may have refreshed while this one waited.
        let tokens = match self.inner.config.store.load().await? {
            Some(current) if current != tokens => return Ok(Some(current)),
            _ => tokens,
        };
        let refreshed = match session.discovered.clone() {
            Some(discovered) => self.refresh(&mut session, &discovered, &tokens).await,
            None => None,
        };
        Ok(Some(refreshed.unwrap_or(tokens)))
    }
}
