//! A server that serves another's tools, prompts and resources through a client
//! ([`Proxy`]): what a client of the proxy gets, in every pairing of the two eras, against
//! what it gets from the other server directly.

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{interop_server, progress_log, resource_text, text};
use oxmcp::client::{CallOptions, Client, ClientOptions, EraMode, ServerNotification};
use oxmcp::protocol::{
    CallToolResult, CompleteRequestParams, Completion, CompletionReference, ContentBlock, ElicitAction,
    ElicitRequestParams, ElicitResult, ErrorObject, LoggingLevel, ResourceContents,
};
use oxmcp::server::{Context, PromptDef, Proxy, Server, ToolDef};
use serde_json::json;
use tokio::sync::{Barrier, Notify};
use tokio_util::sync::CancellationToken;

const ERAS: [EraMode; 2] = [EraMode::Legacy, EraMode::Modern];

async fn connect(server: &Server, era: EraMode) -> Client {
    connect_with(server, ClientOptions::new("proxy-tests", "1.0.0").era(era)).await
}

async fn connect_with(server: &Server, options: ClientOptions) -> Client {
    let (client_end, server_end) = oxmcp::transport::memory::pair();
    let server = server.clone();
    tokio::spawn(async move { server.serve(server_end).await });
    Client::connect(client_end, options).await.expect("connects")
}

/// The interop server, listing two items a page, behind a proxy with a tool of its own.
async fn proxied(upstream: &Server, upstream_era: EraMode) -> Server {
    let proxy = Server::builder("proxy", "1.0.0")
        .tool(ToolDef::new("status").handler(|_, _| async { "proxying" }))
        .build()
        .unwrap();
    proxy.serve_proxies([Proxy::new(connect(upstream, upstream_era).await)]);
    proxy
}

/// What a failed tool said.
fn failure(result: &CallToolResult) -> &str {
    match result.content.as_slice() {
        [ContentBlock::Text(text)] => &text.text,
        other => panic!("not one text: {other:?}"),
    }
}

fn names<T>(items: Vec<T>, name: impl Fn(T) -> String) -> Vec<String> {
    items.into_iter().map(name).collect()
}

#[tokio::test]
async fn a_proxy_lists_and_serves_what_the_other_server_offers_after_its_own() {
    let upstream = interop_server();
    for upstream_era in ERAS {
        let proxy = proxied(&upstream, upstream_era).await;
        for era in ERAS {
            let direct = connect(&upstream, era).await;
            let client = connect(&proxy, era).await;
            let tools = names(client.list_all_tools().await.unwrap(), |t| t.name);
            let upstream_tools = names(direct.list_all_tools().await.unwrap(), |t| t.name);
            assert_eq!(tools[0], "status");
            assert_eq!(tools[1..], upstream_tools[..]);
            assert_eq!(
                names(client.list_all_resources().await.unwrap(), |r| r.uri),
                ["greeting://world"]
            );
            assert_eq!(
                names(client.list_all_resource_templates().await.unwrap(), |t| t.uri_template),
                ["greeting://people/{name}"]
            );
            assert_eq!(names(client.list_all_prompts().await.unwrap(), |p| p.name), ["review"]);

            let added = client.call_tool("add", json!({"a": 2, "b": 3})).await.unwrap();
            assert_eq!(added.structured_content, Some(json!({"sum": 5})));
            let failed = client.call_tool("fail", json!({})).await.unwrap();
            assert_eq!(failed.is_error, Some(true));
            assert_eq!(failure(&failed), "failed on purpose");
            assert_eq!(text(&client.call_tool("status", json!({})).await.unwrap()), "proxying");
            let read = client.read_resource("greeting://people/Ada").await.unwrap();
            assert_eq!(resource_text(&read.contents), "Hello, Ada");
            let prompt = client
                .get_prompt("review", BTreeMap::from([("code".into(), "x = 1".into())]))
                .await
                .unwrap();
            assert_eq!(prompt.messages.len(), 1);

            // The other server's errors come back as it answered them.
            let theirs = direct.call_tool("missing", json!({})).await.unwrap_err();
            let ours = client.call_tool("missing", json!({})).await.unwrap_err();
            let code = |e: &oxmcp::Error| e.as_remote().map(|e: &ErrorObject| e.code);
            assert_eq!(code(&ours), code(&theirs), "{upstream_era:?} behind {era:?}");
            assert!(code(&ours).is_some());
        }
    }
}

#[tokio::test]
async fn a_proxied_call_reports_its_progress_as_it_arrives() {
    let upstream = interop_server();
    for upstream_era in ERAS {
        let proxy = proxied(&upstream, upstream_era).await;
        for era in ERAS {
            let client = connect(&proxy, era).await;
            let (seen, options) = progress_log();
            let done = client
                .call_tool_with("slow", json!({"steps": 3}), &options)
                .await
                .unwrap();
            assert_eq!(text(&done), "done after 3 steps");
            let progress: Vec<f64> = seen.lock().unwrap().iter().map(|p| p.progress).collect();
            assert_eq!(progress, [1.0, 2.0, 3.0], "{upstream_era:?} behind {era:?}");
        }
    }
}

#[tokio::test]
async fn a_proxied_calls_log_messages_reach_its_caller_at_the_callers_level() {
    let upstream = Server::builder("chatty", "1.0.0")
        .tool(ToolDef::new("chat").handler(|_, ctx: Context| async move {
            ctx.log(LoggingLevel::Info, Some("chat"), "hello").await;
            ctx.log(LoggingLevel::Warning, Some("chat"), "careful").await;
            "said"
        }))
        .build()
        .unwrap();
    for upstream_era in ERAS {
        let proxy = proxied(&upstream, upstream_era).await;
        for era in ERAS {
            let logged = Arc::new(Mutex::new(Vec::new()));
            let heard = Arc::clone(&logged);
            let options = ClientOptions::new("proxy-tests", "1.0.0")
                .era(era)
                .on_notification(move |notification| {
                    if let ServerNotification::LogMessage(message) = notification {
                        heard
                            .lock()
                            .unwrap()
                            .push((message.logger.clone(), message.data.clone()));
                    }
                });
            let client = connect_with(&proxy, options).await;
            client.set_log_level(LoggingLevel::Warning).await.unwrap();
            assert_eq!(text(&client.call_tool("chat", json!({})).await.unwrap()), "said");
            let logged = std::mem::take(&mut *logged.lock().unwrap());
            let expected = [(Some("chat".to_owned()), json!("careful"))];
            assert_eq!(logged, expected, "{upstream_era:?} behind {era:?}");
        }
    }
}

#[tokio::test]
async fn the_other_servers_list_changes_reach_the_proxys_clients() {
    for upstream_era in ERAS {
        let upstream = interop_server();
        let proxy = proxied(&upstream, upstream_era).await;
        let client = connect(&proxy, EraMode::Legacy).await;
        let mut notifications = client.notifications();
        let before = client.list_all_tools().await.unwrap().len();
        // A 2026-07-28 server tells them on the stream the proxy opens as it starts to
        // serve it: the tools added before it is open are not told, those after are.
        let mut added = 0;
        let told = tokio::time::timeout(Duration::from_secs(5), async {
            loop {
                added += 1;
                let tool = ToolDef::new(format!("added_{added}")).handler(|_, _| async { "new" });
                upstream.add_tool(tool).unwrap();
                let heard = tokio::time::timeout(Duration::from_millis(100), async {
                    while notifications.recv().await.unwrap() != ServerNotification::ToolListChanged {}
                });
                if heard.await.is_ok() {
                    return;
                }
            }
        })
        .await;
        assert!(told.is_ok(), "{upstream_era:?}: the proxy's client heard of the change");
        assert_eq!(client.list_all_tools().await.unwrap().len(), before + added);
        assert_eq!(text(&client.call_tool("added_1", json!({})).await.unwrap()), "new");
    }
}

#[tokio::test]
async fn a_caller_cancelling_a_proxied_call_cancels_it_on_the_other_server() {
    /// Tells when the call it belongs to stops (the server drops a cancelled handler).
    struct Stopped(tokio::sync::mpsc::UnboundedSender<()>);
    impl Drop for Stopped {
        fn drop(&mut self) {
            let _ = self.0.send(());
        }
    }
    let (stopped_tx, mut stopped_rx) = tokio::sync::mpsc::unbounded_channel();
    let upstream = Server::builder("waiting", "1.0.0")
        .tool(ToolDef::new("wait").handler(move |_, _| {
            let stopped = Stopped(stopped_tx.clone());
            async move {
                let _stopped = stopped;
                std::future::pending::<&str>().await
            }
        }))
        .build()
        .unwrap();
    for upstream_era in ERAS {
        let proxy = proxied(&upstream, upstream_era).await;
        for era in ERAS {
            let client = connect(&proxy, era).await;
            let cancel = CancellationToken::new();
            let options = CallOptions {
                cancellation: Some(cancel.clone()),
                ..Default::default()
            };
            let call = client.call_tool_with("wait", json!({}), &options);
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(100)).await;
                cancel.cancel();
            });
            let ended = tokio::time::timeout(Duration::from_secs(5), call).await;
            assert!(matches!(ended, Ok(Err(oxmcp::Error::Cancelled))), "{ended:?}");
            let heard = tokio::time::timeout(Duration::from_secs(5), stopped_rx.recv()).await;
            assert_eq!(heard, Ok(Some(())), "{upstream_era:?} behind {era:?}");
        }
    }
}

#[tokio::test]
async fn a_proxy_completes_through_the_other_server() {
    let upstream = Server::builder("completing", "1.0.0")
        .prompt(
            PromptDef::new("review")
                .argument("language", "The code's language", true)
                .handler(|_, _| async { "Review this." }),
        )
        .build()
        .unwrap();
    upstream.set_completer(|params: CompleteRequestParams| async move {
        let value = params.argument.value;
        Some(Completion {
            values: vec![format!("{value}-one"), format!("{value}-two")],
            total: None,
            has_more: None,
        })
    });
    let proxy = proxied(&upstream, EraMode::Modern).await;
    let client = connect(&proxy, EraMode::Legacy).await;
    let reference = CompletionReference::Prompt {
        name: "review".into(),
        title: None,
    };
    let completion = client
        .complete(reference, "language", "py", BTreeMap::new())
        .await
        .unwrap();
    assert_eq!(completion.values, ["py-one", "py-two"]);
}

#[tokio::test]
async fn a_proxy_whose_other_server_is_gone_says_so_as_a_tool_error() {
    let upstream = interop_server();
    let (client_end, server_end) = oxmcp::transport::memory::pair();
    let serving = tokio::spawn({
        let upstream = upstream.clone();
        async move { upstream.serve(server_end).await }
    });
    let to_upstream = Client::connect(client_end, ClientOptions::new("proxy", "1.0.0"))
        .await
        .unwrap();
    let proxy = Server::builder("proxy", "1.0.0").build().unwrap();
    proxy.serve_proxies([Proxy::new(to_upstream.clone())]);
    to_upstream.close().await.unwrap();
    serving.abort();
    let client = connect(&proxy, EraMode::Modern).await;
    let failed = client.call_tool("echo", json!({"text": "hi"})).await.unwrap();
    assert_eq!(failed.is_error, Some(true));
    assert_eq!(failure(&failed), "the proxied server: the connection is closed");
}

#[tokio::test]
async fn several_proxies_serve_one_after_another_under_their_namespaces() {
    let paged = Server::builder("paged", "1.0.0")
        .tool(ToolDef::new("one").handler(|_, _| async { "paged one" }))
        .tool(ToolDef::new("two").handler(|_, _| async { "paged two" }))
        .tool(ToolDef::new("three").handler(|_, _| async { "paged three" }))
        .page_size(2)
        .build()
        .unwrap();
    let upstream = interop_server();
    let front = Server::builder("front", "1.0.0").build().unwrap();
    front.serve_proxies([
        Proxy::new(connect(&upstream, EraMode::Modern).await)
            .namespaced("inner")
            .namespaced("interop"),
        // Without a namespace, and without `echo`: the next proxy answers it.
        Proxy::new(connect(&paged, EraMode::Legacy).await),
    ]);
    // One more after those served already.
    front.add_proxy(Proxy::new(connect(&upstream, EraMode::Legacy).await));
    for era in ERAS {
        let client = connect(&front, era).await;
        let tools = names(client.list_all_tools().await.unwrap(), |t| t.name);
        assert_eq!(tools[..2], ["interop_inner_echo", "interop_inner_add"]);
        // A page goes on with the next proxy's first page until one has more pages.
        let first = client.list_tools(None).await.unwrap();
        assert_eq!(first.tools.len(), 9, "{:?}", first.tools);
        assert_eq!(first.tools[7].name, "one");
        assert!(first.next_cursor.is_some());
        let paged_and_plain = ["one", "two", "three", "echo"];
        assert_eq!(tools[7..11], paged_and_plain, "{tools:?}");
        assert_eq!(
            names(client.list_all_resource_templates().await.unwrap(), |t| t.uri_template),
            ["greeting://interop/inner/people/{name}", "greeting://people/{name}"]
        );
        let echoed = client
            .call_tool("interop_inner_echo", json!({"text": "hi"}))
            .await
            .unwrap();
        assert_eq!(text(&echoed), "hi");
        assert_eq!(
            text(&client.call_tool("three", json!({})).await.unwrap()),
            "paged three"
        );
        assert_eq!(
            text(&client.call_tool("echo", json!({"text": "on"})).await.unwrap()),
            "on"
        );
        let read = client
            .read_resource("greeting://interop/inner/people/Ada")
            .await
            .unwrap();
        assert_eq!(resource_text(&read.contents), "Hello, Ada");
        let ResourceContents::Text(contents) = &read.contents[0] else {
            panic!("text")
        };
        assert_eq!(contents.uri, "greeting://interop/inner/people/Ada");
        let missing = client.call_tool("nowhere", json!({})).await.unwrap_err();
        assert_eq!(
            missing.as_remote().map(|e| e.code),
            Some(oxmcp::protocol::code::INVALID_PARAMS)
        );
        let bad = client.list_tools(Some("7:x".into())).await.unwrap_err();
        assert_eq!(
            bad.as_remote().map(|e| e.code),
            Some(oxmcp::protocol::code::INVALID_PARAMS)
        );
    }
}

#[tokio::test]
async fn a_modern_servers_questions_reach_the_proxys_client_in_either_era() {
    let upstream = interop_server();
    let proxy = proxied(&upstream, EraMode::Modern).await;
    for era in ERAS {
        let (client_end, server_end) = oxmcp::transport::memory::pair();
        let serving = proxy.clone();
        tokio::spawn(async move { serving.serve(server_end).await });
        let client = Client::connect(client_end, common::options(era)).await.unwrap();
        // The elicitation: passed through to a 2026-07-28 client, asked on the session of
        // a 2025-11-25 one.
        let answered = client.call_tool("confirm", json!({})).await.unwrap();
        assert_eq!(text(&answered), "Accept: Ada", "{era:?}");
    }
}

/// Options of a legacy client whose elicitations are accepted with `name`: once `barrier`
/// is reached by all who wait at it, if one is given, having told `asked` first.
fn answering(name: &'static str, barrier: Option<Arc<Barrier>>, asked: Option<Arc<Notify>>) -> ClientOptions {
    let answer = move |_: ElicitRequestParams| {
        let (barrier, asked) = (barrier.clone(), asked.clone());
        async move {
            if let Some(asked) = asked {
                asked.notify_one();
            }
            if let Some(barrier) = barrier {
                tokio::time::timeout(Duration::from_secs(10), barrier.wait())
                    .await
                    .expect("the questions asked at once");
            }
            Ok::<_, ErrorObject>(ElicitResult {
                action: ElicitAction::Accept,
                content: Some(serde_json::Map::from_iter([("name".to_owned(), json!(name))])),
                meta: None,
            })
        }
    };
    ClientOptions::new(name, "1.0.0")
        .era(EraMode::Legacy)
        .on_elicitation(answer, false)
}

/// A proxy of the interop server reached over `transport` (in the legacy era), whose own
/// client accepts elicitations as "the proxy" (at `barrier`, if one is given).
async fn proxy_over(transport: oxmcp::transport::Transport, barrier: Option<Arc<Barrier>>) -> Server {
    let upstream = Client::connect(transport, answering("the proxy", barrier, None))
        .await
        .unwrap();
    let proxy = Server::builder("proxy", "1.0.0").build().unwrap();
    proxy.serve_proxies([Proxy::new(upstream)]);
    proxy
}

/// The interop server, served in process.
fn in_process_upstream() -> oxmcp::transport::Transport {
    let upstream = interop_server();
    let (client_end, server_end) = oxmcp::transport::memory::pair();
    tokio::spawn(async move { upstream.serve(server_end).await });
    client_end
}

/// A server of 2025-11-25 asks its question on its connection to the proxy, unrelated to
/// any request: while the call is the only one pending, it reaches the caller of 2025-11-25
/// on its session, as a question of the proxy's would; a 2026-07-28 caller cannot be asked
/// mid-request, and the proxy's own client answers.
#[tokio::test]
async fn a_legacy_servers_question_reaches_the_proxys_legacy_caller() {
    let proxy = proxy_over(in_process_upstream(), None).await;
    for (era, answer) in [(EraMode::Legacy, "Accept: Ada"), (EraMode::Modern, "Accept: the proxy")] {
        let client = connect_with(&proxy, common::options(era)).await;
        let answered = client.call_tool("confirm", json!({})).await.unwrap();
        assert_eq!(text(&answered), answer, "{era:?}");
    }
}

/// Over Streamable HTTP a server of 2025-11-25 asks on the stream of the call it belongs
/// to: with two callers' calls pending at once, each question reaches its own caller
/// (each answers only once both were asked: the calls overlap).
#[tokio::test]
async fn a_legacy_servers_questions_over_http_reach_the_caller_of_their_call() {
    let upstream = interop_server();
    let listener = upstream
        .bind_http("127.0.0.1:0", oxmcp::server::http::HttpConfig::default())
        .await
        .expect("binds");
    let transport = oxmcp::transport::http::client::connect(oxmcp::transport::http::client::HttpClientOptions::new(
        listener.url("/mcp"),
    ))
    .unwrap();
    let proxy = proxy_over(transport, None).await;
    let both_asked = Arc::new(Barrier::new(2));
    let mut callers = Vec::new();
    for name in ["Ada", "Bob"] {
        let options = answering(name, Some(Arc::clone(&both_asked)), None);
        callers.push((name, connect_with(&proxy, options).await));
    }
    let calls = callers
        .iter()
        .map(|(name, client)| async move { (name, client.call_tool("confirm", json!({})).await.unwrap()) });
    for (name, answered) in futures::future::join_all(calls).await {
        assert_eq!(text(&answered), format!("Accept: {name}"));
    }
}

/// Over a connection whose questions name no request (stdio, in process), a question asked
/// while two callers' calls are pending reaches neither caller: the proxy's own client
/// answers it. (The legacy caller's own question, asked while its call was alone, reaches it.)
#[tokio::test]
async fn a_legacy_servers_question_that_cannot_be_related_reaches_no_caller() {
    let both_asked = Arc::new(Barrier::new(2));
    let proxy = proxy_over(in_process_upstream(), Some(Arc::clone(&both_asked))).await;
    let asked_first = Arc::new(Notify::new());
    let legacy = connect_with(
        &proxy,
        answering("Ada", Some(both_asked), Some(Arc::clone(&asked_first))),
    )
    .await;
    let modern = connect_with(&proxy, common::options(EraMode::Modern)).await;
    let first = legacy.call_tool("confirm", json!({}));
    let second = async {
        asked_first.notified().await;
        modern.call_tool("confirm", json!({})).await
    };
    let (first, second) = tokio::join!(first, second);
    assert_eq!(text(&first.unwrap()), "Accept: Ada");
    assert_eq!(text(&second.unwrap()), "Accept: the proxy");
}

#[tokio::test]
async fn a_server_that_serves_no_proxies_any_more_lists_its_own() {
    let proxy = proxied(&interop_server(), EraMode::Legacy).await;
    proxy.serve_proxies(Vec::<Proxy>::new());
    for era in ERAS {
        let client = connect(&proxy, era).await;
        let tools = names(client.list_all_tools().await.unwrap(), |t| t.name);
        assert_eq!(tools, ["status"], "{era:?}");
        assert!(client.list_all_prompts().await.unwrap().is_empty());
    }
}
