//! The client under test of the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`), written with oxmcp.
//!
//! The suite runs `conformance-client <server-url>` with the scenario's name in
//! `MCP_CONFORMANCE_SCENARIO`, the protocol version to speak in
//! `MCP_CONFORMANCE_PROTOCOL_VERSION` (dated versions up to 2025-11-25 use the
//! `initialize` handshake, 2026-07-28 per-request metadata) and, for some scenarios, a
//! JSON object in `MCP_CONFORMANCE_CONTEXT`. The client does what the scenario asks and
//! exits 0 on success, 1 on failure.

use std::collections::BTreeMap;
use std::time::Duration;

use oxmcp::client::auth::{
    protected_resource_metadata_urls, request_id_jag, ClientCredentials, ClientMetadata, OAuthProvider,
    ProtectedResourceMetadata, SigningKey,
};
use oxmcp::client::{Client, ClientOptions, EraMode};
use oxmcp::protocol::skills::SkillResources;
use oxmcp::protocol::{
    CreateMessageRequestParams, CreateMessageResult, ElicitAction, ElicitRequestParams, ElicitResult, ErrorObject,
    ListRootsResult, OneOrMany, Role, Root, SamplingContent, TextContent, Tool,
};
use oxmcp::transport::http::client::{connect, HttpClientOptions};
use serde_json::{json, Map, Value};

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// The redirect URI the auth scenarios' client registers; nothing listens there, since
/// the suite's authorization server approves at once and the client reads its redirect.
const REDIRECT_URI: &str = "http://localhost:3000/callback";
/// The client ID metadata document URL the suite expects (`auth/basic-cimd`).
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

#[tokio::main]
async fn main() {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()))
        .init();
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: MCP_CONFORMANCE_SCENARIO=<scenario> conformance-client <server-url>");
        std::process::exit(2);
    };
    let run = Run {
        scenario: scenario.clone(),
        url,
        era: era(),
        context: std::env::var("MCP_CONFORMANCE_CONTEXT")
            .ok()
            .and_then(|c| serde_json::from_str(&c).ok())
            .unwrap_or(Value::Null),
    };
    match tokio::time::timeout(Duration::from_secs(25), run.dispatch()).await {
        Ok(Ok(())) => eprintln!("conformance-client: {scenario}: done"),
        Ok(Err(e)) => {
            eprintln!("conformance-client: {scenario}: {e}");
            std::process::exit(1);
        }
        Err(_) => {
            eprintln!("conformance-client: {scenario}: timed out");
            std::process::exit(1);
        }
    }
}

/// The era of `MCP_CONFORMANCE_PROTOCOL_VERSION`: the suite tells the client which
/// protocol to speak.
fn era() -> EraMode {
    match std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").as_deref() {
        Ok("2024-11-05" | "2025-03-26" | "2025-06-18" | "2025-11-25") => EraMode::Legacy,
        Ok(_) => EraMode::Modern,
        Err(_) => EraMode::Auto,
    }
}

struct Run {
    scenario: String,
    url: String,
    era: EraMode,
    context: Value,
}

impl Run {
    async fn dispatch(&self) -> Result<(), Failure> {
        match self.scenario.as_str() {
            "initialize" => self.initialize().await,
            "json-schema-ref-no-deref" => self.list_tools_only().await,
            "json-schema-2020-12-preservation" => self.echo_schema().await,
            "elicitation-sep1034-client-defaults" | "elicitation-defaults" => self.exercise_tools().await,
            "sep-2640-client-no-prefetch" => self.list_skills().await,
            skills if skills.starts_with("sep-2640-client-verify") => self.use_skills().await,
            _ => self.exercise_everything().await,
        }
    }

    /// A client that answers every kind of server request: sampling with a fixed text,
    /// elicitation by accepting the form's defaults, roots with one root.
    fn options(&self) -> ClientOptions {
        ClientOptions::new("oxmcp-conformance-client", env!("CARGO_PKG_VERSION"))
            .era(self.era)
            .timeout(Some(Duration::from_secs(20)))
            .on_sampling(
                |params: CreateMessageRequestParams| async move {
                    let asked = params
                        .messages
                        .last()
                        .map(|m| m.content.as_slice())
                        .and_then(|c| {
                            c.iter().find_map(|c| match c {
                                SamplingContent::Text(t) => Some(t.text.clone()),
                                _ => None,
                            })
                        })
                        .unwrap_or_default();
                    Ok::<_, ErrorObject>(CreateMessageResult {
                        role: Role::Assistant,
                        content: OneOrMany::One(SamplingContent::Text(TextContent {
                            text: format!("A test answer to: {asked}"),
                            annotations: None,
                            meta: None,
                        })),
                        model: "test-model".into(),
                        stop_reason: Some("endTurn".into()),
                        meta: None,
                    })
                },
                false,
            )
            .on_elicitation(
                |params: ElicitRequestParams| async move { Ok::<_, ErrorObject>(accept_defaults(&params)) },
                false,
            )
            .on_roots(|| async {
                Ok::<_, ErrorObject>(ListRootsResult {
                    roots: vec![Root {
                        uri: "file:///tmp/oxmcp-conformance".into(),
                        name: Some("Conformance root".into()),
                        meta: None,
                    }],
                    meta: None,
                })
            })
    }

    async fn connect(&self) -> Result<Client, Failure> {
        if !self.scenario.starts_with("auth/") {
            return Ok(Client::connect_http(self.url.clone(), self.options()).await?);
        }
        let transport = connect(HttpClientOptions::new(self.url.clone()).authorizer(self.oauth().await?))?;
        Ok(Client::connect(transport, self.options()).await?)
    }

    /// The OAuth client of the auth scenarios, with the credentials of the scenario's
    /// context when it gives some (pre-registered with the scenario's issuer).
    async fn oauth(&self) -> Result<OAuthProvider, Failure> {
        let field = |name: &str| self.context.get(name).and_then(Value::as_str);
        let credentials = field("client_id").map(|id| {
            let credentials = ClientCredentials::new(id);
            match field("client_secret") {
                Some(secret) => credentials.secret(secret),
                None => credentials,
            }
        });
        let owned = |name: &str| {
            field(name)
                .map(str::to_owned)
                .ok_or(format!("the scenario's context has no {name}"))
        };
        match self.scenario.as_str() {
            "auth/client-credentials-basic" => {
                let credentials = credentials.ok_or("the scenario's context has no client_id")?;
                return Ok(OAuthProvider::client_credentials(self.issuer().await?, credentials));
            }
            "auth/client-credentials-jwt" => {
                let key = SigningKey::from_pkcs8_pem(&owned("private_key_pem")?)?;
                let credentials = ClientCredentials::new(owned("client_id")?).private_key(key);
                return Ok(OAuthProvider::client_credentials(self.issuer().await?, credentials));
            }
            "auth/wif-jwt-bearer" => {
                let credentials = credentials.ok_or("the scenario's context has no client_id")?;
                let jwt = owned("valid_jwt")?;
                return Ok(OAuthProvider::jwt_bearer(
                    self.issuer().await?,
                    credentials,
                    move |_| std::future::ready(Ok::<_, Failure>(jwt.clone())),
                ));
            }
            "auth/enterprise-managed-authorization" => {
                let credentials = credentials.ok_or("the scenario's context has no client_id")?;
                let endpoint = owned("idp_token_endpoint")?;
                let idp_client = ClientCredentials::new(owned("idp_client_id")?);
                let id_token = owned("idp_id_token")?;
                return Ok(OAuthProvider::jwt_bearer(
                    self.issuer().await?,
                    credentials,
                    move |target| {
                        let (endpoint, idp_client, id_token) = (endpoint.clone(), idp_client.clone(), id_token.clone());
                        async move { request_id_jag(&endpoint, &idp_client, &id_token, &target).await }
                    },
                ));
            }
            _ => {}
        }
        let metadata = ClientMetadata::new("oxmcp-conformance-client", REDIRECT_URI);
        // DPoP is used with the authorization servers that offer it (auth/dpop*).
        let provider = OAuthProvider::authorization_code(metadata, approve)
            .client_metadata_url(CLIENT_METADATA_URL)
            .dpop(SigningKey::generate()?);
        Ok(match credentials {
            Some(credentials) => provider.pre_registered(self.issuer().await?, credentials),
            None => provider,
        })
    }

    /// The issuer the scenario's credentials are registered with: the context's `issuer`,
    /// else the first authorization server the scenario's MCP server names (the suite
    /// gives no issuer with some credentials; this harness trusts the suite's servers,
    /// where an app would configure the issuer it registered with).
    async fn issuer(&self) -> Result<String, Failure> {
        if let Some(issuer) = self.context.get("issuer").and_then(Value::as_str) {
            return Ok(issuer.to_owned());
        }
        let server = reqwest::Url::parse(&self.url)?;
        for url in protected_resource_metadata_urls(&server) {
            let response = reqwest::get(url).await?;
            if response.status().is_success() {
                let metadata: ProtectedResourceMetadata = serde_json::from_slice(&response.bytes().await?)?;
                if let Some(issuer) = metadata.authorization_servers.into_iter().next() {
                    return Ok(issuer);
                }
            }
        }
        Err("the scenario's MCP server names no authorization server".into())
    }

    /// Connects, lists the tools, and closes.
    async fn initialize(&self) -> Result<(), Failure> {
        let client = self.connect().await?;
        client.list_all_tools().await?;
        client.close().await?;
        Ok(())
    }

    /// Lists the server's skills, and reads none of their files.
    async fn list_skills(&self) -> Result<(), Failure> {
        let client = self.connect().await?;
        client.list_skills().await?;
        client.close().await?;
        Ok(())
    }

    /// Loads each skill the server lists, then reads its other files, each checked
    /// against the skill's entry; a skill that fails a check is dropped unread.
    async fn use_skills(&self) -> Result<(), Failure> {
        let client = self.connect().await?;
        for skill in client.list_skills().await? {
            if let Err(refused) = client.load_skill(&skill).await {
                eprintln!("conformance-client: refused {}: {refused}", skill.uri);
                continue;
            }
            if let SkillResources::Listed(files) = &skill.resources {
                for file in files.iter().filter(|file| file.uri != skill.uri) {
                    client.read_skill_file(&skill, &file.uri).await?;
                }
            }
        }
        client.close().await?;
        Ok(())
    }

    async fn list_tools_only(&self) -> Result<(), Failure> {
        let client = self.connect().await?;
        client.list_all_tools().await?;
        client.close().await?;
        Ok(())
    }

    /// Lists the tools and sends the schema it saw of the focal tool back through the
    /// echo tool, so the suite can check nothing was lost.
    async fn echo_schema(&self) -> Result<(), Failure> {
        let client = self.connect().await?;
        let tools = client.list_all_tools().await?;
        let focal = tools
            .iter()
            .find(|t| t.name == "json_schema_2020_12_tool")
            .ok_or("the focal tool json_schema_2020_12_tool is not listed")?;
        let schema = Value::Object(focal.input_schema.clone());
        client
            .call_tool("json_schema_echo", json!({ "schema": schema }))
            .await?;
        client.close().await?;
        Ok(())
    }

    /// Lists the tools and calls each one.
    async fn exercise_tools(&self) -> Result<(), Failure> {
        let client = self.connect().await?;
        self.call_tools(&client).await?;
        client.close().await?;
        Ok(())
    }

    /// Uses every feature the server offers: calls each tool (with the arguments the
    /// scenario's context names, else arguments made from the tool's schema), reads each
    /// resource, gets each prompt.
    async fn exercise_everything(&self) -> Result<(), Failure> {
        let client = self.connect().await?;
        let capabilities = client.server_details().capabilities;
        if capabilities.tools.is_some() {
            self.call_tools(&client).await?;
        }
        if capabilities.resources.is_some() {
            for resource in client.list_all_resources().await? {
                client.read_resource(&resource.uri).await?;
            }
        }
        if capabilities.prompts.is_some() {
            for prompt in client.list_all_prompts().await? {
                let arguments: BTreeMap<String, String> = prompt
                    .arguments
                    .iter()
                    .flatten()
                    .filter(|a| a.required == Some(true))
                    .map(|a| (a.name.clone(), "test".to_owned()))
                    .collect();
                client.get_prompt(&prompt.name, arguments).await?;
            }
        }
        client.close().await?;
        Ok(())
    }

    async fn call_tools(&self, client: &Client) -> Result<(), Failure> {
        let tools = client.list_all_tools().await?;
        if let Some(calls) = self.context.get("toolCalls").and_then(Value::as_array) {
            for call in calls {
                let name = call
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or("a tool call without a name")?;
                let arguments = call.get("arguments").cloned().unwrap_or_else(|| json!({}));
                client.call_tool(name, arguments).await?;
            }
            return Ok(());
        }
        for tool in &tools {
            client.call_tool(&tool.name, arguments_for(tool)).await?;
        }
        Ok(())
    }
}

/// The user's part of the authorization code flow: the suite's authorization server
/// approves at once, so the redirect it answers with is the callback.
async fn approve(url: reqwest::Url) -> Result<String, Failure> {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()?;
    let response = http.get(url).send().await?;
    let location = response.headers().get(reqwest::header::LOCATION).ok_or_else(|| {
        format!(
            "the authorization endpoint answered {} without a redirect",
            response.status()
        )
    })?;
    Ok(location.to_str()?.to_owned())
}

/// Arguments that satisfy a tool's input schema: a value of the right type for each
/// required property.
fn arguments_for(tool: &Tool) -> Value {
    let properties = tool.input_schema.get("properties").and_then(Value::as_object);
    let required: Vec<&str> = tool
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut arguments = Map::new();
    for name in required {
        let schema = properties.and_then(|p| p.get(name)).unwrap_or(&Value::Null);
        arguments.insert(name.to_owned(), sample_value(schema, name));
    }
    Value::Object(arguments)
}

fn sample_value(schema: &Value, name: &str) -> Value {
    if let Some(first) = schema.get("enum").and_then(Value::as_array).and_then(|e| e.first()) {
        return first.clone();
    }
    if let Some(default) = schema.get("default") {
        return default.clone();
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("number") | Some("integer") => json!(if name == "b" { 3 } else { 2 }),
        Some("boolean") => json!(true),
        Some("array") => json!([]),
        Some("object") => json!({}),
        _ => json!("test"),
    }
}

/// The answer of a user who accepts a form as the server pre-filled it: every field with
/// a default gets it (SEP-1034).
fn accept_defaults(params: &ElicitRequestParams) -> ElicitResult {
    let ElicitRequestParams::Form(form) = params else {
        return ElicitResult {
            action: ElicitAction::Decline,
            content: None,
            meta: None,
        };
    };
    let mut content = Map::new();
    if let Some(properties) = form.requested_schema.get("properties").and_then(Value::as_object) {
        for (name, schema) in properties {
            if let Some(default) = schema.get("default") {
                content.insert(name.clone(), default.clone());
            }
        }
    }
    let required = form
        .requested_schema
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for name in required.iter().filter_map(Value::as_str) {
        if !content.contains_key(name) {
            let schema = form
                .requested_schema
                .get("properties")
                .and_then(|p| p.get(name))
                .unwrap_or(&Value::Null);
            content.insert(name.to_owned(), sample_value(schema, name));
        }
    }
    ElicitResult {
        action: ElicitAction::Accept,
        content: Some(content),
        meta: None,
    }
}
