//! Method names on the wire.

/// Legacy handshake request.
pub const INITIALIZE: &str = "initialize";
/// Legacy handshake completion notification.
pub const INITIALIZED: &str = "notifications/initialized";
/// Liveness check (legacy era).
pub const PING: &str = "ping";
/// Modern discovery.
pub const DISCOVER: &str = "server/discover";
/// List tools.
pub const TOOLS_LIST: &str = "tools/list";
/// Call a tool.
pub const TOOLS_CALL: &str = "tools/call";
/// List resources.
pub const RESOURCES_LIST: &str = "resources/list";
/// List resource templates.
pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
/// Read a resource.
pub const RESOURCES_READ: &str = "resources/read";
/// Subscribe to a resource (legacy era).
pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
/// Unsubscribe from a resource (legacy era).
pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
/// List prompts.
pub const PROMPTS_LIST: &str = "prompts/list";
/// Get a prompt.
pub const PROMPTS_GET: &str = "prompts/get";
/// Complete an argument.
pub const COMPLETION_COMPLETE: &str = "completion/complete";
/// Set the log level (legacy era).
pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
/// Open a notification stream (modern era).
pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
/// Polls a task (the 2026-07-28 tasks extension).
pub const TASKS_GET: &str = "tasks/get";
/// Answers a task's input requests (the 2026-07-28 tasks extension).
pub const TASKS_UPDATE: &str = "tasks/update";
/// Asks for a task to stop (the 2026-07-28 tasks extension).
pub const TASKS_CANCEL: &str = "tasks/cancel";
/// A task's result, once it ends (2025-11-25).
pub const TASKS_RESULT: &str = "tasks/result";
/// The caller's tasks (2025-11-25).
pub const TASKS_LIST: &str = "tasks/list";
/// Server asks the client's LLM.
pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
/// Server asks the client's user.
pub const ELICITATION_CREATE: &str = "elicitation/create";
/// Server asks for the client's roots.
pub const ROOTS_LIST: &str = "roots/list";
/// List the skills (skills extension).
pub const SKILLS_LIST: &str = "skills/list";
/// Describe one skill (skills extension).
pub const SKILLS_GET: &str = "skills/get";
/// List a directory's children (skills extension, with `directoryRead`).
pub const RESOURCES_DIRECTORY_READ: &str = "resources/directory/read";
/// Cancel a request.
pub const CANCELLED: &str = "notifications/cancelled";
/// Progress of a request.
pub const PROGRESS: &str = "notifications/progress";
/// A log message.
pub const MESSAGE: &str = "notifications/message";
/// The tool list changed.
pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
/// The prompt list changed.
pub const PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
/// The resource list changed.
pub const RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
/// A resource changed.
pub const RESOURCES_UPDATED: &str = "notifications/resources/updated";
/// The client's roots changed (legacy era).
pub const ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";
/// A subscription is open (modern era).
pub const SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
/// A URL-mode elicitation finished (2025-11-25).
pub const ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";
/// A task's status changed (2025-11-25).
pub const TASKS_STATUS: &str = "notifications/tasks/status";
/// A task changed (2026-07-28 tasks extension, on `subscriptions/listen`).
pub const TASKS_NOTIFICATION: &str = "notifications/tasks";

/// The requests an MCP server answers, in either era.
pub const SERVER_REQUESTS: [&str; 23] = [
    INITIALIZE,
    PING,
    DISCOVER,
    TOOLS_LIST,
    TOOLS_CALL,
    RESOURCES_LIST,
    RESOURCES_TEMPLATES_LIST,
    RESOURCES_READ,
    RESOURCES_SUBSCRIBE,
    RESOURCES_UNSUBSCRIBE,
    PROMPTS_LIST,
    PROMPTS_GET,
    COMPLETION_COMPLETE,
    LOGGING_SET_LEVEL,
    SUBSCRIPTIONS_LISTEN,
    TASKS_GET,
    TASKS_UPDATE,
    TASKS_CANCEL,
    TASKS_RESULT,
    TASKS_LIST,
    SKILLS_LIST,
    SKILLS_GET,
    RESOURCES_DIRECTORY_READ,
];

/// The notifications an MCP server acts on.
pub const SERVER_NOTIFICATIONS: [&str; 3] = [INITIALIZED, CANCELLED, ROOTS_LIST_CHANGED];
