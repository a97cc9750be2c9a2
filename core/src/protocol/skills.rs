//! The skills extension (SEP-2640, `io.modelcontextprotocol/skills`): a server offers
//! Agent Skills (a `SKILL.md` with YAML front matter, and the files beside it) as
//! resources, lists them with `skills/list`, describes one with `skills/get`, and lists a
//! skill directory's children with `resources/directory/read`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::result::protocol_result;
use super::{CacheScope, Meta, Resource, ResultType};

/// The extension's identifier in `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The MIME type of a directory in `resources/directory/read` results.
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// The extension's settings, as a server declares them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillsCapability {
    /// The server answers `resources/directory/read` for its skills' directories.
    #[serde(rename = "directoryRead", default, skip_serializing_if = "Option::is_none")]
    pub directory_read: Option<bool>,
}

/// One file of a skill: its URI, and what verifies its bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillResource {
    /// The file's URI (the skill's `SKILL.md`, or one inside the skill's directory).
    pub uri: String,
    /// `sha256:` and the lowercase hex SHA-256 of the file's bytes.
    pub digest: String,
    /// The file's length in bytes.
    pub size: u64,
}

/// The files of a skill: every one, or `"dynamic"` for a skill whose files are not known
/// up front.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SkillResources {
    /// Every file of the skill, its `SKILL.md` among them.
    Listed(Vec<SkillResource>),
    /// The files are not listed (the JSON string `"dynamic"`).
    Dynamic(DynamicTag),
}

/// The `"dynamic"` tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DynamicTag {
    /// `"dynamic"`.
    #[serde(rename = "dynamic")]
    Dynamic,
}

/// A skill as `skills/list` and `skills/get` describe it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Skill {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
    /// The YAML front matter of the `SKILL.md`, as JSON (`name` and `description` at least).
    pub frontmatter: Map<String, Value>,
    /// The skill's files.
    pub resources: SkillResources,
}

impl Skill {
    /// The skill's name (its front matter's `name`).
    pub fn name(&self) -> Option<&str> {
        self.frontmatter.get("name").and_then(Value::as_str)
    }

    /// The skill's description (its front matter's `description`).
    pub fn description(&self) -> Option<&str> {
        self.frontmatter.get("description").and_then(Value::as_str)
    }

    /// The listed file `uri`, if the skill lists its files and that is one of them.
    pub fn resource(&self, uri: &str) -> Option<&SkillResource> {
        match &self.resources {
            SkillResources::Listed(files) => files.iter().find(|file| file.uri == uri),
            SkillResources::Dynamic(_) => None,
        }
    }
}

/// Params of `skills/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetSkillRequestParams {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
}

/// Result of `skills/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ListSkillsResult {
    /// One page of skills.
    pub skills: Vec<Skill>,
    /// Where the next page starts.
    #[serde(rename = "nextCursor", default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// `complete`.
    #[serde(rename = "resultType", default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Freshness hint.
    #[serde(rename = "ttlMs", default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Cache scope.
    #[serde(rename = "cacheScope", default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
}

/// Result of `skills/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetSkillResult {
    /// The skill.
    pub skill: Skill,
    /// `complete`.
    #[serde(rename = "resultType", default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Freshness hint.
    #[serde(rename = "ttlMs", default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Cache scope.
    #[serde(rename = "cacheScope", default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
}

/// Params of `resources/directory/read`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DirectoryReadRequestParams {
    /// The directory's URI (no trailing slash).
    pub uri: String,
    /// Where the page starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// Result of `resources/directory/read`: the directory's direct children, subdirectories
/// with the MIME type [`DIRECTORY_MIME_TYPE`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DirectoryReadResult {
    /// One page of children.
    pub resources: Vec<Resource>,
    /// Where the next page starts.
    #[serde(rename = "nextCursor", default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// `complete`.
    #[serde(rename = "resultType", default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

/// The YAML front matter a `SKILL.md` begins with (after an optional byte order mark,
/// between two `---` lines), as a JSON object.
pub fn frontmatter(text: &str) -> Result<Map<String, Value>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let body = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or("it does not begin with a `---` line of YAML front matter")?;
    let mut end = None;
    let mut offset = 0;
    for line in body.split_inclusive('\n') {
        if line.trim_end_matches(['\n', '\r']).trim_end_matches([' ', '\t']) == "---" {
            end = Some(offset);
            break;
        }
        offset += line.len();
    }
    let yaml = &body[..end.ok_or("its front matter has no closing `---` line")?];
    match serde_yaml_ng::from_str::<Value>(yaml) {
        Ok(Value::Object(fields)) => Ok(fields),
        Ok(_) => Err("its front matter is not a YAML mapping".to_owned()),
        Err(e) => Err(format!("its front matter is not valid YAML: {e}")),
    }
}

/// `sha256:` and the lowercase hex SHA-256 of `bytes`: a skill file's digest.
pub fn digest(bytes: &[u8]) -> String {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(bytes);
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

protocol_result!(cacheable ListSkillsResult, GetSkillResult);
protocol_result!(DirectoryReadResult);
