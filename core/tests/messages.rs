//! The protocol's messages beyond listing and calling, in both eras, in process and over
//! Streamable HTTP: resource-not-found in each era's words, URL elicitation required and
//! its completion notice, the client's roots changing, custom methods added while the
//! server runs, skills (the skills extension) served, verified and refused, and what a
//! catalog lists and serves beside what is registered (a low-level server).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use oxmcp::client::{Client, ClientOptions, EraMode, ServerNotification};
use oxmcp::protocol::skills::{Skill, SkillResources};
use oxmcp::protocol::{
    code, CallToolResult, ContentBlock, ElicitAction, ElicitRequestFormParams, ElicitRequestParams,
    ElicitRequestUrlParams, Era, ErrorObject, GetPromptResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListRootsResult, ListToolsResult, LoggingLevel, PromptMessage, Resource, ResourceContents,
    Root, UrlMode,
};
use oxmcp::server::http::{HttpConfig, HttpServerHandle};
use oxmcp::server::{Catalog, Context, HandlerError, ResourceDef, ResourceTemplateDef, Server, SkillListing, ToolDef};
use oxmcp::transport::http::client::{connect, HttpClientOptions};
use serde_json::{json, Map, Value};
use tokio::sync::mpsc;

const ERAS: [EraMode; 2] = [EraMode::Legacy, EraMode::Modern];

/// A client of `server` in `era` over each transport: in process, and Streamable HTTP
/// (the handle keeps the listener up).
async fn clients(
    server: &Server,
    era: EraMode,
    options: ClientOptions,
) -> Vec<(&'static str, Client, Option<HttpServerHandle>)> {
    let (client_end, server_end) = oxmcp::transport::memory::pair();
    let served = server.clone();
    tokio::spawn(async move { served.serve(server_end).await });
    let in_process = Client::connect(client_end, options.clone().era(era))
        .await
        .expect("connects");
    let handle = server
        .bind_http("127.0.0.1:0", HttpConfig::default())
        .await
        .expect("binds");
    let url = handle.url("/mcp");
    let transport = connect(HttpClientOptions::new(url)).expect("a transport");
    let over_http = Client::connect(transport, options.era(era)).await.expect("connects");
    vec![("memory", in_process, None), ("http", over_http, Some(handle))]
}

fn options() -> ClientOptions {
    ClientOptions::new("messages-tests", "1.0.0").timeout(Some(Duration::from_secs(10)))
}

/// The next notification other than a subscription's acknowledgement, within a short wait.
async fn next_notification(
    notifications: &mut tokio::sync::broadcast::Receiver<ServerNotification>,
) -> Option<ServerNotification> {
    loop {
        match tokio::time::timeout(Duration::from_millis(500), notifications.recv()).await {
            Ok(Ok(ServerNotification::SubscriptionAcknowledged(_))) => continue,
            Ok(Ok(note)) => return Some(note),
            _ => return None,
        }
    }
}

#[tokio::test]
async fn a_missing_resource_is_told_in_the_words_of_each_era_and_read_as_one_error() {
    let server = Server::builder("files", "1")
        .resource_template(ResourceTemplateDef::new("file:///{name}", "file").handler(
            |uri: String, vars, _ctx: Context| async move {
                if vars["name"] == "here" {
                    return Ok("present".to_owned());
                }
                Err(HandlerError::resource_not_found(uri))
            },
        ))
        .build()
        .unwrap();
    for era in ERAS {
        for (transport, client, _listener) in clients(&server, era, options()).await {
            let expected = match era {
                EraMode::Legacy => code::RESOURCE_NOT_FOUND,
                _ => code::INVALID_PARAMS,
            };
            for uri in ["file:///gone", "other:///unknown"] {
                let error = client.read_resource(uri).await.unwrap_err();
                assert!(error.is_resource_not_found(), "{era:?} {transport} {uri}: {error}");
                let remote = error.as_remote().unwrap();
                assert_eq!(remote.code, expected, "{era:?} {transport} {uri}");
                assert_eq!(remote.data, Some(json!({ "uri": uri })), "{era:?} {transport}");
            }
            assert!(client.read_resource("file:///here").await.is_ok());
        }
    }
    // Invalid params that name no URI are not a missing resource.
    assert!(!ErrorObject::invalid_params("no").is_resource_not_found());
    assert!(ErrorObject::resource_not_found("x:", Era::Legacy).is_resource_not_found());
}

#[tokio::test]
async fn a_url_elicitation_required_error_then_its_completion_reaches_a_legacy_client() {
    let (completed_tx, mut completed_rx) = mpsc::unbounded_channel::<Context>();
    let server = Server::builder("consent", "1")
        .tool(ToolDef::new("connect").handler(move |_, ctx: Context| {
            let completed = completed_tx.clone();
            async move {
                // The user finishes in the browser after this call has failed: the server
                // keeps the context to say so.
                completed.send(ctx).ok();
                Err::<String, _>(HandlerError::url_elicitation_required(&[ElicitRequestUrlParams {
                    mode: UrlMode::Url,
                    message: "Sign in to the drive".into(),
                    url: "https://drive.example/consent".into(),
                    elicitation_id: Some("consent-1".into()),
                    meta: None,
                }]))
            }
        }))
        .build()
        .unwrap();
    for (transport, client, _listener) in clients(&server, EraMode::Legacy, options()).await {
        let mut notifications = client.notifications();
        let error = client.call_tool("connect", json!({})).await.unwrap_err();
        let remote = error.as_remote().expect("a JSON-RPC error");
        assert_eq!(remote.code, code::URL_ELICITATION_REQUIRED, "{transport}");
        let asked = remote.url_elicitations().expect("the elicitations");
        assert_eq!(asked[0].url, "https://drive.example/consent");
        assert_eq!(asked[0].elicitation_id.as_deref(), Some("consent-1"));

        let ctx = completed_rx.recv().await.unwrap();
        ctx.notify_elicitation_complete("consent-1").await;
        match next_notification(&mut notifications).await {
            Some(ServerNotification::ElicitationComplete(params)) => {
                assert_eq!(params.elicitation_id, "consent-1", "{transport}")
            }
            other => panic!("{transport}: expected the completion, got {other:?}"),
        }
    }
    // 2026-07-28 has no such notification: nothing is sent.
    for (transport, client, _listener) in clients(&server, EraMode::Modern, options()).await {
        let mut notifications = client.notifications();
        client.call_tool("connect", json!({})).await.unwrap_err();
        let ctx = completed_rx.recv().await.unwrap();
        ctx.notify_elicitation_complete("consent-1").await;
        assert_eq!(next_notification(&mut notifications).await, None, "{transport}");
    }
}

#[tokio::test]
async fn a_legacy_client_says_its_roots_changed_and_the_server_asks_again() {
    let (seen_tx, mut seen_rx) = mpsc::unbounded_channel::<(Option<String>, Vec<String>, Option<bool>)>();
    let server = Server::builder("rooted", "1")
        .on_roots_list_changed(move |_params: Value, ctx: Context| {
            let seen = seen_tx.clone();
            async move {
                let roots = ctx.list_roots().await.map(|r| r.roots).unwrap_or_default();
                let declared = ctx.client_capabilities().roots.as_ref().and_then(|r| r.list_changed);
                seen.send((
                    ctx.request_id().map(|id| id.to_string()),
                    roots.into_iter().map(|r| r.uri).collect(),
                    declared,
                ))
                .ok();
            }
        })
        .build()
        .unwrap();
    let roots = Arc::new(Mutex::new(vec!["file:///one".to_owned()]));
    let listed = Arc::clone(&roots);
    let options = options().on_roots(move || {
        let uris = listed.lock().unwrap().clone();
        async move {
            Ok::<_, ErrorObject>(ListRootsResult {
                roots: uris
                    .into_iter()
                    .map(|uri| Root {
                        uri,
                        name: None,
                        meta: None,
                    })
                    .collect(),
                meta: None,
            })
        }
    });
    for (transport, client, _listener) in clients(&server, EraMode::Legacy, options.clone()).await {
        roots.lock().unwrap().push(format!("file:///{transport}"));
        client.notify_roots_list_changed().await.unwrap();
        let (request_id, uris, declared) = tokio::time::timeout(Duration::from_secs(5), seen_rx.recv())
            .await
            .expect("the server's handler ran")
            .unwrap();
        assert_eq!(request_id, None, "{transport}: a notification has no request id");
        assert!(uris.contains(&format!("file:///{transport}")), "{transport}: {uris:?}");
        assert_eq!(declared, Some(true), "{transport}: the client declares listChanged");
    }
    // 2026-07-28 has no such notification: a server asks for roots within each request.
    for (transport, client, _listener) in clients(&server, EraMode::Modern, options.clone()).await {
        client.notify_roots_list_changed().await.unwrap();
        let heard = tokio::time::timeout(Duration::from_millis(300), seen_rx.recv()).await;
        assert!(heard.is_err(), "{transport}: nothing was sent");
    }
}

#[tokio::test]
async fn custom_methods_and_extensions_added_while_the_server_runs() {
    let server = Server::builder("extended", "1").build().unwrap();
    let (heard_tx, mut heard_rx) = mpsc::unbounded_channel::<Value>();
    server
        .add_request_handler("weather/forecast", |params: Value, ctx: Context| async move {
            Ok::<_, HandlerError>(json!({ "city": params["city"], "era": format!("{:?}", ctx.era()) }))
        })
        .unwrap();
    server
        .add_notification_handler("notifications/weather/seen", move |params: Value, _ctx: Context| {
            let heard = heard_tx.clone();
            async move {
                heard.send(params).ok();
            }
        })
        .unwrap();
    server.declare_extension("com.example/weather", json!({ "units": ["metric"] }));
    let refused = server.add_request_handler("tools/call", |_: Value, _: Context| async { Ok(json!({})) });
    assert!(refused.is_err(), "the protocol's methods cannot be taken over");
    let twice = server.add_request_handler("weather/forecast", |_: Value, _: Context| async { Ok(json!({})) });
    assert!(twice.is_err(), "a method has one handler");

    for era in ERAS {
        for (transport, client, _listener) in clients(&server, era, options()).await {
            let params = Map::from_iter([("city".to_owned(), json!("Oslo"))]);
            let answer: Value = client
                .request("weather/forecast", params, &Default::default())
                .await
                .unwrap();
            assert_eq!(answer["city"], "Oslo", "{era:?} {transport}");
            let note = Map::from_iter([("city".to_owned(), json!("Bergen"))]);
            client.notify("notifications/weather/seen", Some(note)).await.unwrap();
            let heard = tokio::time::timeout(Duration::from_secs(5), heard_rx.recv()).await;
            let heard = heard.unwrap_or_else(|_| panic!("{era:?} {transport}: the notification was not heard"));
            assert_eq!(heard.unwrap()["city"], "Bergen", "{era:?} {transport}");
            let extensions = client.server_details().capabilities.extensions;
            match era {
                EraMode::Legacy => assert!(
                    extensions.is_none(),
                    "{transport}: extensions are a 2026-07-28 capability"
                ),
                _ => assert_eq!(
                    extensions.unwrap()["com.example/weather"],
                    json!({ "units": ["metric"] }),
                    "{transport}"
                ),
            }
        }
    }
}

/// A server keeps its own record of subscriptions and of the log level, as an official
/// low-level server does: its handlers are told of each request before the core acts on
/// it, and refuse one by failing.
#[tokio::test]
async fn a_server_is_told_of_subscriptions_and_log_levels_and_may_refuse_them() {
    let told = Arc::new(Mutex::new(Vec::<String>::new()));
    let server = Server::builder("recording", "1")
        .resource_template(
            ResourceTemplateDef::new("file:///{name}", "files")
                .handler(|uri: String, _, _: Context| async move { Ok::<_, HandlerError>(uri) }),
        )
        .build()
        .unwrap();
    for method in ["resources/subscribe", "resources/unsubscribe", "logging/setLevel"] {
        let told = Arc::clone(&told);
        server
            .add_request_handler(method, move |params: Value, _ctx: Context| {
                let told = Arc::clone(&told);
                async move {
                    if params["uri"] == "file:///secret" {
                        return Err(HandlerError::rpc(ErrorObject::invalid_params("not that one")));
                    }
                    let what = params.get("uri").or(params.get("level")).cloned().unwrap_or_default();
                    told.lock()
                        .unwrap()
                        .push(format!("{method} {}", what.as_str().unwrap_or_default()));
                    Ok(json!({}))
                }
            })
            .unwrap();
    }
    let refused = server.add_request_handler("resources/read", |_: Value, _: Context| async { Ok(json!({})) });
    assert!(refused.is_err(), "the core answers resources/read");

    for (transport, client, _listener) in clients(&server, EraMode::Legacy, options()).await {
        told.lock().unwrap().clear();
        let mut notifications = client.notifications();
        client.subscribe_resource("file:///a").await.unwrap();
        client.set_log_level(LoggingLevel::Warning).await.unwrap();
        let refusal = client.subscribe_resource("file:///secret").await.unwrap_err();
        assert_eq!(
            refusal.as_remote().map(|e| e.code),
            Some(code::INVALID_PARAMS),
            "{transport}"
        );
        // The core still keeps the subscriptions: it tells the subscriber, and only it.
        server.notify_resource_updated("file:///secret");
        server.notify_resource_updated("file:///a");
        match next_notification(&mut notifications).await {
            Some(ServerNotification::ResourceUpdated(params)) => assert_eq!(params.uri, "file:///a", "{transport}"),
            other => panic!("{transport}: expected the update, got {other:?}"),
        }
        client.unsubscribe_resource("file:///a").await.unwrap();
        assert_eq!(
            *told.lock().unwrap(),
            [
                "resources/subscribe file:///a",
                "logging/setLevel warning",
                "resources/unsubscribe file:///a"
            ],
            "{transport}"
        );
    }
}

/// A legacy client's `notifications/initialized` reaches a server that asks for it, with the
/// session's context (the client's facts), and the client's requests wait for its handler:
/// a tool it registers once it knows the client is listed to that client.
#[tokio::test]
async fn a_server_hears_a_legacy_client_finish_its_handshake() {
    let (heard_tx, mut heard_rx) = mpsc::unbounded_channel::<Option<String>>();
    let server = Server::builder("greeting", "1").build().unwrap();
    let registering = server.clone();
    server
        .add_notification_handler("notifications/initialized", move |_params: Value, ctx: Context| {
            let (heard, server) = (heard_tx.clone(), registering.clone());
            async move {
                tokio::time::sleep(Duration::from_millis(100)).await;
                let tool = ToolDef::new(format!("for-{}", ctx.transport().as_str()));
                server
                    .add_tool(tool.handler(|_, _: Context| async { Ok::<_, HandlerError>("hi") }))
                    .unwrap();
                heard.send(ctx.client_info().map(|info| info.name.clone())).ok();
            }
        })
        .unwrap();
    for (transport, client, _listener) in clients(&server, EraMode::Legacy, options()).await {
        let tools = client.list_all_tools().await.unwrap();
        let carried = if transport == "http" {
            "streamable-http"
        } else {
            transport
        };
        assert!(
            tools.iter().any(|tool| tool.name == format!("for-{carried}")),
            "{transport}: {tools:?}"
        );
        let heard = tokio::time::timeout(Duration::from_secs(5), heard_rx.recv()).await;
        let client = heard.unwrap_or_else(|_| panic!("{transport}: not heard")).unwrap();
        assert_eq!(client.as_deref(), Some("messages-tests"), "{transport}");
    }
    // 2026-07-28 has no handshake.
    for (transport, _client, _listener) in clients(&server, EraMode::Modern, options()).await {
        let heard = tokio::time::timeout(Duration::from_millis(300), heard_rx.recv()).await;
        assert!(heard.is_err(), "{transport}: nothing to hear");
    }
}

#[tokio::test]
async fn handlers_know_what_carries_their_request() {
    let server = Server::builder("carried", "1")
        .tool(
            ToolDef::new("transport")
                .handler(|_, ctx: Context| async move { Ok::<_, HandlerError>(ctx.transport().as_str().to_owned()) }),
        )
        .build()
        .unwrap();
    for era in ERAS {
        for (transport, client, _listener) in clients(&server, era, options()).await {
            let result = client.call_tool("transport", json!({})).await.unwrap();
            let expected = if transport == "http" {
                "streamable-http"
            } else {
                transport
            };
            assert_eq!(result.content, [ContentBlock::text(expected)], "{era:?}");
        }
    }
}

/// The skills every fixture serves (`tests/skills`).
fn skills_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/skills")
}

const SKILL: &str = "skill://pdf-processing/SKILL.md";
const FORMS: &str = "skill://pdf-processing/references/FORMS.md";

#[tokio::test]
async fn skills_are_listed_loaded_and_verified_by_2026_clients() {
    let server = Server::builder("skilled", "1").skills(skills_dir()).build().unwrap();
    for (transport, client, _listener) in clients(&server, EraMode::Modern, options()).await {
        assert!(client.offers_skills(), "{transport}");
        let skills = client.list_skills().await.unwrap();
        assert_eq!(skills.len(), 1, "{transport}");
        let skill = &skills[0];
        assert_eq!(skill.uri, SKILL);
        assert_eq!(skill.name(), Some("pdf-processing"));
        let SkillResources::Listed(files) = &skill.resources else {
            panic!("{transport}: the files are listed")
        };
        assert_eq!(files.iter().map(|f| f.uri.as_str()).collect::<Vec<_>>(), [SKILL, FORMS]);
        assert_eq!(&client.get_skill(SKILL).await.unwrap(), skill);
        let unknown = client.get_skill("skill://nowhere/SKILL.md").await.unwrap_err();
        assert_eq!(
            unknown.as_remote().map(|e| e.code),
            Some(code::INVALID_PARAMS),
            "{transport}"
        );

        let text = client.load_skill(skill).await.unwrap();
        assert!(text.contains("# PDF processing"), "{transport}");
        let forms = client.read_skill_file(skill, FORMS).await.unwrap();
        assert!(String::from_utf8(forms).unwrap().starts_with("Forms have fields"));

        // The SKILL.md is a listed resource; the other files are read, not listed.
        let listed = client.list_all_resources().await.unwrap();
        let skill_md = listed.iter().find(|r| r.uri == SKILL).expect("SKILL.md is listed");
        assert_eq!(skill_md.mime_type.as_deref(), Some("text/markdown"));
        assert_eq!(skill_md.name, "pdf-processing");
        assert!(listed.iter().all(|r| r.uri != FORMS));

        let root: Value = client
            .request(
                "resources/directory/read",
                Map::from_iter([("uri".to_owned(), json!("skill://pdf-processing"))]),
                &Default::default(),
            )
            .await
            .unwrap();
        let children: Vec<(&str, &str)> = root["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["uri"].as_str().unwrap(), r["mimeType"].as_str().unwrap()))
            .collect();
        assert_eq!(
            children,
            [
                (SKILL, "text/markdown"),
                ("skill://pdf-processing/references", "inode/directory")
            ],
            "{transport}"
        );
        let not_a_directory = client
            .request::<Value>(
                "resources/directory/read",
                Map::from_iter([("uri".to_owned(), json!(SKILL))]),
                &Default::default(),
            )
            .await
            .unwrap_err();
        assert_eq!(not_a_directory.as_remote().map(|e| e.code), Some(code::INVALID_PARAMS));
    }
}

/// Skills added to a running server, listed as FastMCP lists them: a connected client is
/// told the resources changed; later clients list, get and read them; adding them again
/// changes nothing; skills whose resource URIs are taken are refused whole.
#[tokio::test]
async fn skills_added_to_a_built_server_are_served_and_listed_file_by_file() {
    let server = Server::builder("skilled", "1")
        .skill_listing(SkillListing::Files)
        .build()
        .unwrap();
    let (_, before, _listener) = clients(&server, EraMode::Legacy, options()).await.remove(0);
    let mut notifications = before.notifications();
    server.add_skills(skills_dir()).unwrap();
    assert!(matches!(
        next_notification(&mut notifications).await,
        Some(ServerNotification::ResourceListChanged)
    ));
    server.add_skills(skills_dir()).unwrap();
    for (transport, client, _listener) in clients(&server, EraMode::Modern, options()).await {
        assert!(client.offers_skills(), "{transport}");
        assert_eq!(client.list_skills().await.unwrap().len(), 1, "{transport}");
        let listed: Vec<(String, String)> = client
            .list_all_resources()
            .await
            .unwrap()
            .into_iter()
            .map(|r| (r.uri, r.name))
            .collect();
        let named = |uri: &str, name: &str| (uri.to_owned(), name.to_owned());
        assert_eq!(
            listed,
            [
                named(SKILL, "pdf-processing/SKILL.md"),
                named(FORMS, "pdf-processing/references/FORMS.md"),
                named("skill://pdf-processing/_manifest", "pdf-processing/_manifest"),
            ],
            "{transport}"
        );
        let manifest = client.read_resource("skill://pdf-processing/_manifest").await.unwrap();
        let ResourceContents::Text(manifest) = &manifest.contents[0] else {
            panic!("{transport}: a text manifest")
        };
        let manifest: Value = serde_json::from_str(&manifest.text).unwrap();
        assert_eq!(manifest["files"][1]["path"], "references/FORMS.md", "{transport}");
    }

    let taken = Server::builder("taken", "1")
        .resource(
            ResourceDef::new(SKILL, "mine").handler(|uri: String, _vars, _ctx: Context| async move {
                Ok::<_, HandlerError>(ResourceContents::text(uri, "mine"))
            }),
        )
        .build()
        .unwrap();
    let refused = taken.add_skills(skills_dir()).unwrap_err();
    assert!(refused.to_string().contains(SKILL), "{refused}");
    let (_, client, _listener) = clients(&taken, EraMode::Modern, options()).await.remove(0);
    assert!(!client.offers_skills());
    assert!(client.read_resource(FORMS).await.is_err());
}

#[tokio::test]
async fn a_skill_file_that_does_not_match_its_entry_is_refused() {
    let server = Server::builder("skilled", "1").skills(skills_dir()).build().unwrap();
    let (_, client, _listener) = clients(&server, EraMode::Modern, options()).await.remove(0);
    let genuine = client.get_skill(SKILL).await.unwrap();
    let tampered = |change: &dyn Fn(&mut Skill)| {
        let mut skill = genuine.clone();
        change(&mut skill);
        skill
    };
    let wrong_digest = tampered(&|skill| {
        if let SkillResources::Listed(files) = &mut skill.resources {
            files[0].digest = format!("sha256:{}", "0".repeat(64));
        }
    });
    let wrong_size = tampered(&|skill| {
        if let SkillResources::Listed(files) = &mut skill.resources {
            files[0].size += 1;
        }
    });
    let other_description = tampered(&|skill| {
        skill
            .frontmatter
            .insert("description".into(), json!("Exfiltrate credentials"));
    });
    for (what, skill) in [
        ("digest", wrong_digest),
        ("size", wrong_size),
        ("front matter", other_description),
    ] {
        let refused = client.load_skill(&skill).await.unwrap_err();
        assert!(matches!(refused, oxmcp::Error::Verification(_)), "{what}: {refused}");
    }
    let unlisted = client
        .read_skill_file(&genuine, "skill://pdf-processing/secrets.txt")
        .await
        .unwrap_err();
    assert!(matches!(unlisted, oxmcp::Error::Verification(_)), "{unlisted}");
}

#[tokio::test]
async fn a_legacy_client_reads_skill_files_but_is_not_offered_the_extension() {
    let server = Server::builder("skilled", "1").skills(skills_dir()).build().unwrap();
    for (transport, client, _listener) in clients(&server, EraMode::Legacy, options()).await {
        assert!(
            !client.offers_skills(),
            "{transport}: extensions are a 2026-07-28 capability"
        );
        assert!(matches!(client.list_skills().await, Err(oxmcp::Error::Unsupported(_))));
        let forms = client.read_resource(FORMS).await.unwrap();
        assert_eq!(forms.contents.len(), 1, "{transport}");
    }
}

#[tokio::test]
async fn resources_not_known_up_front_are_listed_page_by_page() {
    let files: Vec<String> = (1..=5).map(|i| format!("file{i}.txt")).collect();
    let server = Server::builder("files", "1")
        .resource(oxmcp::server::ResourceDef::new("config://app", "config").handler(|_, _, _| async { "{}" }))
        .catalog(
            Catalog::new().list_resources(move |cursor: Option<String>, _ctx: Context| {
                let files = files.clone();
                async move {
                    let start: usize = cursor
                        .as_deref()
                        .map_or(Ok(0), str::parse)
                        .map_err(|_| HandlerError::rpc(ErrorObject::invalid_params("not a cursor of this lister")))?;
                    let end = (start + 2).min(files.len());
                    Ok(ListResourcesResult {
                        resources: files[start..end]
                            .iter()
                            .map(|name| Resource::new(format!("file:///{name}"), name.clone()))
                            .collect(),
                        next_cursor: (end < files.len()).then(|| end.to_string()),
                        ..Default::default()
                    })
                }
            }),
        )
        .resource_template(
            ResourceTemplateDef::new("file:///{name}", "file")
                .handler(|_uri, vars, _ctx: Context| async move { format!("contents of {}", vars["name"]) }),
        )
        .build()
        .unwrap();
    for era in ERAS {
        for (transport, client, _listener) in clients(&server, era, options()).await {
            let first = client.list_resources(None).await.unwrap();
            let names: Vec<&str> = first.resources.iter().map(|r| r.name.as_str()).collect();
            assert_eq!(names, ["config", "file1.txt", "file2.txt"], "{era:?} {transport}");
            let all = client.list_all_resources().await.unwrap();
            assert_eq!(all.len(), 6, "{era:?} {transport}");
            assert_eq!(all[5].uri, "file:///file5.txt");
            let read = client.read_resource("file:///file5.txt").await.unwrap();
            assert_eq!(
                serde_json::to_value(&read.contents[0]).unwrap()["text"],
                "contents of file5.txt"
            );
            let bad = client.list_resources(Some("nonsense".into())).await.unwrap_err();
            assert_eq!(
                bad.as_remote().map(|e| e.code),
                Some(code::INVALID_PARAMS),
                "{era:?} {transport}"
            );
        }
    }
}

/// A definition as the wire has it.
fn parsed<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("a valid definition")
}

/// The catalog of a low-level server: tools `shout` and `ask` (which elicits) on two pages,
/// prompt `greet`, template `note:///{id}` and any `note:///` URI read; what it does not
/// know is a tool error or the request's error.
fn low_level_catalog() -> Catalog {
    Catalog::new()
        .list_tools(|cursor: Option<String>, _ctx: Context| async move {
            let tool = |name: &str| parsed(json!({"name": name, "inputSchema": {"type": "object"}}));
            Ok::<_, HandlerError>(match cursor.as_deref() {
                None => ListToolsResult {
                    tools: vec![tool("shout")],
                    next_cursor: Some("page 2".into()),
                    ..Default::default()
                },
                _ => ListToolsResult {
                    tools: vec![tool("ask")],
                    ..Default::default()
                },
            })
        })
        .call_tool(|name: String, arguments: Map<String, Value>, ctx: Context| async move {
            let text = match name.as_str() {
                "shout" => arguments["text"].as_str().unwrap_or_default().to_uppercase(),
                "ask" => {
                    let form = ElicitRequestParams::Form(ElicitRequestFormParams {
                        mode: None,
                        message: "Name?".into(),
                        requested_schema: parsed(json!({"type": "object", "properties": {"name": {"type": "string"}}})),
                        meta: None,
                    });
                    let answer = ctx.elicit(form).await?;
                    assert_eq!(answer.action, ElicitAction::Accept);
                    format!("hello {}", answer.content.unwrap_or_default()["name"])
                }
                other => return Err(HandlerError::message(format!("no tool {other}"))),
            };
            Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
        })
        .list_prompts(|_cursor: Option<String>, _ctx: Context| async {
            Ok::<_, HandlerError>(ListPromptsResult {
                prompts: vec![parsed(json!({"name": "greet"}))],
                ..Default::default()
            })
        })
        .get_prompt(
            |name: String, arguments: std::collections::BTreeMap<String, String>, _ctx: Context| async move {
                if name != "greet" {
                    return Err(HandlerError::rpc(ErrorObject::invalid_params(format!(
                        "no prompt {name}"
                    ))));
                }
                let who = arguments.get("who").map_or("you", String::as_str);
                Ok(GetPromptResult {
                    messages: vec![PromptMessage::user(format!("Greet {who}"))],
                    ..parsed(json!({"messages": []}))
                })
            },
        )
        .list_resource_templates(|_cursor: Option<String>, _ctx: Context| async {
            Ok::<_, HandlerError>(ListResourceTemplatesResult {
                resource_templates: vec![parsed(json!({"uriTemplate": "note:///{id}", "name": "note"}))],
                ..Default::default()
            })
        })
        .read_resource(|uri: String, _vars, _ctx: Context| async move {
            match uri.strip_prefix("note:///") {
                Some(id) => Ok(format!("note {id}")),
                None => Err(HandlerError::rpc(ErrorObject::resource_not_found(&uri, Era::Modern))),
            }
        })
}

#[tokio::test]
async fn a_low_level_server_lists_and_serves_through_its_catalog() {
    // Registered definitions come first and keep their own handlers.
    let server = Server::builder("low-level", "1")
        .tool(ToolDef::new("echo").handler(|args, _| async move { args["text"].as_str().unwrap_or("").to_owned() }))
        .catalog(low_level_catalog())
        .build()
        .unwrap();
    let options = options().on_elicitation(
        |_: ElicitRequestParams| async {
            Ok::<_, ErrorObject>(oxmcp::protocol::ElicitResult {
                action: ElicitAction::Accept,
                content: json!({"name": "Ada"}).as_object().cloned(),
                meta: None,
            })
        },
        false,
    );
    for era in ERAS {
        for (transport, client, _listener) in clients(&server, era, options.clone()).await {
            let seen = format!("{era:?} {transport}");
            let first = client.list_tools(None).await.unwrap();
            let names: Vec<&str> = first.tools.iter().map(|t| t.name.as_str()).collect();
            assert_eq!(names, ["echo", "shout"], "{seen}");
            let second = client.list_tools(first.next_cursor).await.unwrap();
            assert_eq!(second.tools[0].name, "ask", "{seen}");
            assert_eq!(second.next_cursor, None, "{seen}");

            let text = |result: CallToolResult| result.content[0].as_text().unwrap_or_default().to_owned();
            let call = |name: &'static str| client.call_tool(name, json!({"text": "hi"}));
            assert_eq!(text(call("echo").await.unwrap()), "hi", "{seen}");
            assert_eq!(text(call("shout").await.unwrap()), "HI", "{seen}");
            assert_eq!(
                text(call("ask").await.unwrap()),
                "hello \"Ada\"",
                "{seen}: elicits in its era"
            );
            let unknown = call("nothing").await.unwrap();
            assert_eq!(
                (unknown.is_error, text(unknown)),
                (Some(true), "no tool nothing".into()),
                "{seen}"
            );

            let prompts = client.list_prompts(None).await.unwrap();
            assert_eq!(prompts.prompts[0].name, "greet", "{seen}");
            let prompt = client
                .get_prompt("greet", [("who".to_owned(), "Ada".to_owned())].into())
                .await
                .unwrap();
            assert_eq!(prompt.messages[0].content.as_text(), Some("Greet Ada"), "{seen}");
            let missing = client.get_prompt("other", Default::default()).await.unwrap_err();
            assert_eq!(
                missing.as_remote().map(|e| e.code),
                Some(code::INVALID_PARAMS),
                "{seen}"
            );

            let templates = client.list_resource_templates(None).await.unwrap();
            assert_eq!(templates.resource_templates[0].uri_template, "note:///{id}", "{seen}");
            assert!(
                client.list_resources(None).await.unwrap().resources.is_empty(),
                "{seen}"
            );
            let note = client.read_resource("note:///7").await.unwrap();
            assert_eq!(
                serde_json::to_value(&note.contents[0]).unwrap()["text"],
                "note 7",
                "{seen}"
            );
        }
    }

    // A server with nothing but a catalog offers what the catalog has.
    let bare = Server::builder("bare", "1")
        .catalog(low_level_catalog())
        .build()
        .unwrap();
    let (_, client, _listener) = clients(&bare, EraMode::Legacy, options.clone()).await.remove(0);
    let capabilities = client.server_details().capabilities;
    assert!(capabilities.tools.is_some() && capabilities.prompts.is_some() && capabilities.resources.is_some());
}

#[tokio::test]
async fn a_list_the_server_says_is_fresh_is_kept_until_it_changes() {
    use oxmcp::protocol::CacheScope;
    use oxmcp::server::DefinitionKind;
    use oxmcp::transport::MessageDirection;
    use std::sync::atomic::{AtomicUsize, Ordering};

    let server = Server::builder("fresh", "1")
        .list_cache_hints(DefinitionKind::Tool, 60_000, CacheScope::Public)
        .tool(ToolDef::new("first").handler(|_, _| async { "1" }))
        .build()
        .unwrap();
    for (era, caching, expected) in [
        (EraMode::Modern, true, [1, 1, 2]),
        (EraMode::Modern, false, [1, 2, 3]),
        // Legacy results carry no TTL: the server is asked each time.
        (EraMode::Legacy, true, [1, 2, 3]),
    ] {
        let listings = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&listings);
        let options = options().cache_lists(caching).on_message(move |direction, text| {
            if matches!(direction, MessageDirection::Outgoing) && text.contains("\"tools/list\"") {
                counter.fetch_add(1, Ordering::SeqCst);
            }
        });
        let (transport, client, _listener) = clients(&server, era, options).await.remove(0);
        let mut notifications = client.notifications();
        let listen = match era {
            EraMode::Modern => Some(
                client
                    .listen(oxmcp::protocol::SubscriptionFilter {
                        tools_list_changed: Some(true),
                        ..Default::default()
                    })
                    .await
                    .unwrap(),
            ),
            _ => None,
        };
        let mut counts = Vec::new();
        client.list_all_tools().await.unwrap();
        counts.push(listings.load(Ordering::SeqCst));
        client.list_all_tools().await.unwrap();
        counts.push(listings.load(Ordering::SeqCst));
        server
            .add_tool(ToolDef::new(format!("late-{era:?}-{caching}")).handler(|_, _| async { "2" }))
            .unwrap();
        assert_eq!(
            next_notification(&mut notifications).await,
            Some(ServerNotification::ToolListChanged)
        );
        let tools = client.list_all_tools().await.unwrap();
        counts.push(listings.load(Ordering::SeqCst));
        assert!(
            tools.iter().any(|t| t.name.starts_with("late")),
            "{era:?} {transport}: the change is seen"
        );
        assert_eq!(counts, expected, "{era:?} caching={caching} {transport}");
        drop(listen);
    }
}

#[tokio::test]
async fn capabilities_say_what_is_registered_and_a_subscription_is_narrowed_to_them() {
    use oxmcp::protocol::SubscriptionFilter;
    use oxmcp::server::{Capability, PromptDef};

    let tools_only = Server::builder("tools-only", "1")
        .tool(ToolDef::new("echo").handler(|_, _| async { "ok" }))
        .build()
        .unwrap();
    let asked = SubscriptionFilter {
        tools_list_changed: Some(true),
        prompts_list_changed: Some(true),
        resources_list_changed: Some(true),
        resource_subscriptions: Some(vec!["file:///a".into()]),
        task_ids: None,
    };
    for era in ERAS {
        for (transport, client, _listener) in clients(&tools_only, era, options()).await {
            let capabilities = client.server_details().capabilities;
            assert!(capabilities.tools.is_some() && capabilities.logging.is_some());
            assert!(
                capabilities.prompts.is_none()
                    && capabilities.resources.is_none()
                    && capabilities.completions.is_none(),
                "{era:?} {transport}: {capabilities:?}"
            );
            if era == EraMode::Modern {
                let subscription = client.listen(asked.clone()).await.unwrap();
                let only_tools = SubscriptionFilter {
                    tools_list_changed: Some(true),
                    ..Default::default()
                };
                assert_eq!(subscription.acknowledged(), &only_tools, "{transport}");
            }
        }
    }

    // A template with a completion handler offers resources and completions; prompts the
    // server will add later are declared up front, and a prompt added later is heard of.
    let declared = Server::builder("declared", "1")
        .declare(Capability::Prompts)
        .resource_template(
            ResourceTemplateDef::new("file:///{name}", "file")
                .complete("name", |value: String, _| async move { vec![value] })
                .handler(|_uri, _vars, _ctx: Context| async { "text" }),
        )
        .build()
        .unwrap();
    for era in ERAS {
        for (transport, client, _listener) in clients(&declared, era, options()).await {
            let capabilities = client.server_details().capabilities;
            assert!(capabilities.tools.is_none(), "{era:?} {transport}: {capabilities:?}");
            let resources = capabilities.resources.expect("resources");
            assert_eq!((resources.subscribe, resources.list_changed), (Some(true), Some(true)));
            assert!(capabilities.prompts.is_some() && capabilities.completions.is_some());
            if era == EraMode::Modern {
                let subscription = client.listen(asked.clone()).await.unwrap();
                let acknowledged = subscription.acknowledged();
                assert_eq!(acknowledged.tools_list_changed, None, "{transport}");
                assert_eq!(acknowledged.prompts_list_changed, Some(true), "{transport}");
                assert_eq!(acknowledged.resource_subscriptions, asked.resource_subscriptions);
                let mut notifications = client.notifications();
                let name = format!("late-{transport}");
                declared
                    .add_prompt(PromptDef::new(name).handler(|_, _| async { "hello" }))
                    .unwrap();
                let heard = next_notification(&mut notifications).await;
                assert!(
                    matches!(heard, Some(ServerNotification::PromptListChanged)),
                    "{transport}: {heard:?}"
                );
            }
        }
    }
}
