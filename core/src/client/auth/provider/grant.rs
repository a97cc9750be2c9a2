//! One authorization run: discovery, the client id at the discovered authorization
//! server (registered before, pre-registered, a metadata document URL, or a new
//! registration), and the provider's grant.

use reqwest::Url;

use super::scope::select_scope;
use super::{GrantKind, OAuthProvider, RedirectHandler, Session};
use crate::client::auth::assertion::AssertionTarget;
use crate::client::auth::authorize::AuthorizationRequest;
use crate::client::auth::challenge::BearerChallenge;
use crate::client::auth::discovery::{discover, Discovered};
use crate::client::auth::registration::{register, ClientCredentials, TokenEndpointAuthMethod};
use crate::client::auth::token::{request_tokens, Grant, Tokens};
use crate::client::auth::AuthError;

impl OAuthProvider {
    /// Authorizes anew after a refusal with `challenge`: with the refresh token when
    /// `may_refresh` and the refusal asks for no more scope, else with the grant; keeps
    /// the tokens, and the discovery for later refreshes.
    pub(super) async fn run(
        &self,
        session: &mut Session,
        server: &Url,
        challenge: BearerChallenge,
        may_refresh: bool,
    ) -> Result<Tokens, AuthError> {
        let inner = &self.inner.config;
        let discovered = discover(&inner.http, server, challenge.resource_metadata.as_deref()).await?;
        let prior = inner
            .store
            .load()
            .await?
            .filter(|t| t.issuer == discovered.server.issuer);
        // A client registered by an earlier run of the app, kept with its tokens.
        if let Some(client) = prior.as_ref().and_then(|t| t.client.clone()) {
            if inner.pre_registered.is_empty() {
                session
                    .clients
                    .entry(discovered.server.issuer.clone())
                    .or_insert(client);
            }
        }
        if may_refresh && !challenge.insufficient_scope() {
            if let Some(prior) = &prior {
                if let Some(tokens) = self.refresh(session, &discovered, prior).await {
                    session.discovered = Some(discovered);
                    return Ok(tokens);
                }
            }
        }
        let user_authorizes = matches!(inner.grant, GrantKind::AuthorizationCode { .. });
        let scope = select_scope(&challenge, prior.as_ref(), &discovered, user_authorizes);
        let client = self.client_for(session, &discovered).await?;
        let mut tokens = match &inner.grant {
            GrantKind::ClientCredentials => {
                request_tokens(
                    &inner.http,
                    &discovered.server,
                    &client,
                    Grant::ClientCredentials,
                    &discovered.resource,
                    scope.as_deref(),
                    self.dpop_for(&discovered.server),
                )
                .await?
            }
            GrantKind::JwtBearer(assertion) => {
                let target = AssertionTarget {
                    issuer: discovered.server.issuer.clone(),
                    resource: discovered.resource.clone(),
                    scope: scope.clone(),
                };
                let assertion = assertion(target)
                    .await
                    .map_err(|e| AuthError::Assertion(e.to_string()))?;
                request_tokens(
                    &inner.http,
                    &discovered.server,
                    &client,
                    Grant::JwtBearer(assertion.trim()),
                    &discovered.resource,
                    scope.as_deref(),
                    self.dpop_for(&discovered.server),
                )
                .await?
            }
            GrantKind::AuthorizationCode { metadata, redirect } => {
                let redirect_uri = metadata
                    .redirect_uris
                    .first()
                    .ok_or_else(|| AuthError::invalid_url("(client metadata)", "no redirect URI"))?;
                self.code_flow(redirect, &client, redirect_uri, &discovered, scope.as_deref())
                    .await?
            }
        };
        if tokens.scope.is_none() {
            tokens.scope = scope;
        }
        // Pre-registered credentials stay in the app's configuration, out of the store.
        if inner.pre_registered.is_empty() {
            tokens.client = Some(client);
        }
        inner.store.save(Some(tokens.clone())).await?;
        session.discovered = Some(discovered);
        Ok(tokens)
    }

    /// The authorization code grant: the user authorizes through the redirect handler,
    /// the checked code is exchanged with the PKCE verifier.
    async fn code_flow(
        &self,
        redirect: &RedirectHandler,
        client: &ClientCredentials,
        redirect_uri: &str,
        discovered: &Discovered,
        scope: Option<&str>,
    ) -> Result<Tokens, AuthError> {
        let server = &discovered.server;
        if discovered.published && !server.supports_s256() {
            return Err(AuthError::PkceUnsupported);
        }
        let endpoint = server
            .authorization_endpoint
            .as_deref()
            .ok_or_else(|| AuthError::invalid(&server.issuer, "the metadata names no authorization endpoint"))?;
        let request = AuthorizationRequest::new(
            endpoint,
            &client.client_id,
            redirect_uri,
            scope,
            &discovered.resource,
            discovered.published.then(|| server.issuer.clone()),
            server.authorization_response_iss_parameter_supported,
        )?;
        let callback = redirect(request.url().clone())
            .await
            .map_err(|e| AuthError::Redirect(e.to_string()))?;
        let code = request.code_from(&callback)?;
        let grant = Grant::AuthorizationCode {
            code: &code,
            redirect_uri: request.redirect_uri(),
            verifier: request.verifier(),
        };
        let dpop = self.dpop_for(server);
        request_tokens(
            &self.inner.config.http,
            server,
            client,
            grant,
            &discovered.resource,
            None,
            dpop,
        )
        .await
    }

    /// The client id at the discovered authorization server: one registered there
    /// before, the one pre-registered there, the metadata document URL, or a new
    /// registration.
    async fn client_for(&self, session: &mut Session, discovered: &Discovered) -> Result<ClientCredentials, AuthError> {
        let server = &discovered.server;
        if let Some(client) = session.clients.get(&server.issuer) {
            return Ok(client.clone());
        }
        let inner = &self.inner.config;
        if !inner.pre_registered.is_empty() {
            // Pre-registered credentials (and a JWT bearer grant's assertions, made after
            // this) never go to an authorization server they were not registered with.
            let credentials = inner.pre_registered.get(&server.issuer).ok_or_else(|| {
                let mut registered: Vec<String> = inner.pre_registered.keys().cloned().collect();
                registered.sort();
                AuthError::UnregisteredIssuer {
                    issuer: server.issuer.clone(),
                    registered,
                }
            })?;
            session.clients.insert(server.issuer.clone(), credentials.clone());
            return Ok(credentials.clone());
        }
        let client = match (&inner.metadata_document_url, &inner.grant) {
            (Some(url), _) if server.client_id_metadata_document_supported => {
                ClientCredentials::new(url.clone()).auth_method(TokenEndpointAuthMethod::None)
            }
            (_, GrantKind::AuthorizationCode { metadata, .. }) => {
                let endpoint = server
                    .registration_endpoint
                    .as_deref()
                    .ok_or_else(|| AuthError::NoRegistration {
                        issuer: server.issuer.clone(),
                    })?;
                register(&inner.http, endpoint, metadata, server).await?
            }
            (_, GrantKind::ClientCredentials | GrantKind::JwtBearer(_)) => {
                return Err(AuthError::NoRegistration {
                    issuer: server.issuer.clone(),
                })
            }
        };
        session.clients.insert(server.issuer.clone(), client.clone());
        Ok(client)
    }
}
