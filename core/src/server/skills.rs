//! Serving Agent Skills: the skills extension (SEP-2640, `io.modelcontextprotocol/skills`).
//!
//! A directory of skills, each a directory with a `SKILL.md` (YAML front matter with
//! `name` and `description`, then instructions) and any files beside it, is read once
//! when the server is built (`ServerBuilder::skills`):
//!
//! ```text
//! skills/
//!   pdf-processing/          skill://pdf-processing/SKILL.md
//!     SKILL.md
//!     references/FORMS.md    skill://pdf-processing/references/FORMS.md
//! ```
//!
//! Each `SKILL.md` is listed as a resource (`text/markdown`, its name and description
//! from the front matter); every file of a skill is read with `resources/read`; the
//! skills are listed with `skills/list` (each with the digest and size of every file, so
//! that a client can verify what it reads) and described with `skills/get`; a skill's
//! directories list their children with `resources/directory/read`. The files are held in
//! memory: what clients verify cannot change under them.
//!
//! With [`SkillListing::Files`], every file of a skill is listed as a resource instead,
//! named by its path, with the skill's `_manifest` (a JSON list of its files) beside them,
//! as FastMCP lists a skill; each skill's `_manifest` is readable either way, for clients
//! that read a skill without the extension (FastMCP's `read_skill`).

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::Path;
use std::sync::{Arc, RwLock};

use base64::Engine;
use indexmap::IndexMap;
use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde_json::value::RawValue;
use serde_json::Value;

use super::context::Context;
use super::dispatch::{finish, parse_params, CursorParams, Outcome};
use super::handler::HandlerError;
use super::pagination::page;
use super::resources::ResourceHandler;
use super::schema::DefinitionError;
use super::stamp::Stamp;
use super::Server;
use crate::protocol::skills::{
    digest, frontmatter, DirectoryReadRequestParams, DirectoryReadResult, GetSkillRequestParams, GetSkillResult,
    ListSkillsResult, Skill, SkillResource, SkillResources, DIRECTORY_MIME_TYPE,
};
use crate::protocol::{CacheScope, ErrorObject, ReadResourceResult, Resource, ResourceContents};
use crate::BoxFuture;

/// The last segment of the URI of a skill's manifest.
const MANIFEST: &str = "_manifest";
/// The longest description a skill may have, in characters (the Agent Skills limit).
const MAX_DESCRIPTION: usize = 1024;
/// The most files one skill may have (the extension's limit).
const MAX_FILES_PER_SKILL: usize = 512;
/// The most bytes one skill's files may hold together (the extension's limit, 16 MiB).
const MAX_BYTES_PER_SKILL: u64 = 16 * 1024 * 1024;
/// What a path segment keeps unencoded in a `skill://` URI: RFC 3986's unreserved characters.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// How a server lists its skills among its resources.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SkillListing {
    /// Each skill's `SKILL.md` alone, named and described by its front matter.
    #[default]
    Entries,
    /// Every file of each skill, named by its path (`pdf-processing/SKILL.md`, the skill's
    /// description on its `SKILL.md`), then the skill's `_manifest`: as FastMCP lists them.
    Files,
}

/// The skills of a server: each skill's entry, every file, every directory's children.
#[derive(Default, Clone)]
pub(crate) struct Skills {
    /// By the URI of their `SKILL.md`, in the order found.
    skills: IndexMap<String, Skill>,
    /// Every file of every skill, and each skill's `_manifest`, by URI.
    files: HashMap<String, SkillFile>,
    /// Each directory of a skill (its root included), by URI: its direct children.
    directories: HashMap<String, IndexMap<String, Resource>>,
}

/// One file of a skill, as read.
#[derive(Clone)]
struct SkillFile {
    /// Its path from the skill's root's parent (`pdf-processing/references/FORMS.md`).
    name: String,
    bytes: Arc<[u8]>,
    mime_type: String,
}

impl Skills {
    /// Reads every skill under `root` into these: each directory that holds a
    /// `SKILL.md`, at any depth (a skill nested in another is also listed on its own). A
    /// skill at a URI these already have is left out: the first root read keeps it.
    pub(crate) fn load(&mut self, root: &Path) -> Result<(), DefinitionError> {
        let failed = |what: String| DefinitionError::new(format!("skills in {}: {what}", root.display()));
        let mut found = Vec::new();
        find_skills(root, &mut Vec::new(), &mut found).map_err(|e| failed(e.to_string()))?;
        for segments in found {
            self.add(root, &segments).map_err(failed)?;
        }
        Ok(())
    }

    /// Adds the skill in directory `segments` of `root`, unless one is at its URI.
    fn add(&mut self, root: &Path, segments: &[String]) -> Result<(), String> {
        if self.skills.contains_key(&format!("{}/SKILL.md", skill_uri(segments))) {
            return Ok(());
        }
        let dir = segments
            .iter()
            .fold(root.to_path_buf(), |path, segment| path.join(segment));
        let mut files = Vec::new();
        collect_files(&dir, &mut Vec::new(), &mut files).map_err(|e| format!("{}: {e}", dir.display()))?;
        self.add_files(segments, files, &segments.join("/"))
    }

    /// Adds the skill at `path` (`ops/deploy`, its last segment its name) whose files are
    /// `files` (each by its path in the skill, `SKILL.md` among them), unless one is at its
    /// URI. Paths are relative, of segments other than `.` and `..`.
    pub(crate) fn add_skill(&mut self, path: &str, files: Vec<(String, Vec<u8>)>) -> Result<(), String> {
        self.add_skill_named(path, files, path)
    }

    /// [`add_skill`](Self::add_skill), its resources named after path `named`.
    fn add_skill_named(&mut self, path: &str, files: Vec<(String, Vec<u8>)>, named: &str) -> Result<(), String> {
        let segments = relative_segments(path).ok_or_else(|| format!("skill path {path:?} is not a relative path"))?;
        if self.skills.contains_key(&format!("{}/SKILL.md", skill_uri(&segments))) {
            return Ok(());
        }
        let files = files
            .into_iter()
            .map(|(file, bytes)| match relative_segments(&file) {
                Some(file) => Ok((file, bytes)),
                None => Err(format!("skill {path}: {file:?} is not a relative path")),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut paths: Vec<String> = files.iter().map(|(file, _)| file.join("/")).collect();
        paths.sort();
        // Sorted, a path another one is in (or repeats) comes right before it.
        if let Some(pair) = paths
            .windows(2)
            .find(|pair| pair[1] == pair[0] || pair[1].starts_with(&format!("{}/", pair[0])))
        {
            return Err(format!("skill {path}: {:?} is both a file and {:?}", pair[0], pair[1]));
        }
        self.add_files(&segments, files, named)
    }

    /// Adds the skills of `other`, each at its path under `namespace` if one is given,
    /// unless one is at its URI.
    pub(crate) fn add_from(&mut self, other: &Skills, namespace: Option<&str>) -> Result<(), String> {
        for skill in other.skills.values() {
            let SkillResources::Listed(listed) = &skill.resources else {
                continue;
            };
            // Each file's name is the path its resources are named after, then its own.
            let Some(named) = other
                .files
                .get(&skill.uri)
                .and_then(|md| md.name.strip_suffix("/SKILL.md"))
            else {
                continue;
            };
            let files = listed
                .iter()
                .filter_map(|resource| other.files.get(&resource.uri))
                .filter_map(|file| {
                    let relative = file.name.strip_prefix(named)?.strip_prefix('/')?;
                    Some((relative.to_owned(), file.bytes.to_vec()))
                })
                .collect();
            let path = skill
                .uri
                .strip_prefix("skill://")
                .and_then(|uri| uri.strip_suffix("/SKILL.md"))
                .unwrap_or_default()
                .split('/')
                .map(|segment| percent_decode_str(segment).decode_utf8_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            let placed = match namespace {
                Some(namespace) => format!("{namespace}/{path}"),
                None => path,
            };
            // Served elsewhere, its resources keep the names they have there, as FastMCP's.
            self.add_skill_named(&placed, files, named)?;
        }
        Ok(())
    }

    /// Adds the skill at `segments` whose files are `files`, its resources named after
    /// path `named`.
    fn add_files(
        &mut self,
        segments: &[String],
        mut files: Vec<(Vec<String>, Vec<u8>)>,
        named: &str,
    ) -> Result<(), String> {
        let dir_uri = skill_uri(segments);
        let skill_uri = format!("{dir_uri}/SKILL.md");
        // By path, as a manifest lists them (a file before a directory of the same stem).
        files.sort_by_cached_key(|(path, _)| path.join("/"));
        if files.len() > MAX_FILES_PER_SKILL {
            return Err(format!(
                "{dir_uri} has {} files, more than {MAX_FILES_PER_SKILL}",
                files.len()
            ));
        }
        let total: u64 = files.iter().map(|(_, bytes)| bytes.len() as u64).sum();
        if total > MAX_BYTES_PER_SKILL {
            return Err(format!(
                "{dir_uri} holds {total} bytes, more than {MAX_BYTES_PER_SKILL}"
            ));
        }
        let skill_md = files
            .iter()
            .find(|(path, _)| path.len() == 1 && path[0] == "SKILL.md")
            .map(|(_, bytes)| bytes)
            .ok_or_else(|| format!("{dir_uri} has no SKILL.md"))?;
        let text = std::str::from_utf8(skill_md).map_err(|_| format!("{dir_uri}/SKILL.md is not UTF-8 text"))?;
        let front = frontmatter(text).map_err(|e| format!("{dir_uri}/SKILL.md: {e}"))?;
        let name = front.get("name").and_then(Value::as_str).unwrap_or_default();
        let description = front.get("description").and_then(Value::as_str).unwrap_or_default();
        if name.is_empty() || description.trim().is_empty() {
            return Err(format!(
                "{dir_uri}/SKILL.md: the front matter needs a `name` and a `description`"
            ));
        }
        if description.chars().count() > MAX_DESCRIPTION {
            return Err(format!(
                "{dir_uri}/SKILL.md: the description is longer than {MAX_DESCRIPTION} characters"
            ));
        }
        let last = segments.last().map(String::as_str).unwrap_or_default();
        if name != last || !is_skill_name(name) {
            return Err(format!(
                "{dir_uri}: the skill's name {name:?} must be its directory's name, 1 to 64 of a-z, 0-9 and single inner hyphens"
            ));
        }
        let mut listed = Vec::with_capacity(files.len());
        let mut manifest = Vec::with_capacity(files.len());
        for (path, bytes) in files {
            let uri = format!(
                "{dir_uri}/{}",
                path.iter().map(|s| encode(s)).collect::<Vec<_>>().join("/")
            );
            let file = SkillResource {
                uri: uri.clone(),
                digest: digest(&bytes),
                size: bytes.len() as u64,
            };
            manifest.push(serde_json::json!({ "path": path.join("/"), "size": file.size, "hash": file.digest }));
            listed.push(file);
            let mime_type = mime_type(path.last().map(String::as_str).unwrap_or_default(), &bytes);
            self.add_to_directories(&dir_uri, &path, &uri, bytes.len() as u64, &mime_type);
            self.files.insert(
                uri,
                SkillFile {
                    name: format!("{named}/{}", path.join("/")),
                    bytes: Arc::from(bytes),
                    mime_type,
                },
            );
        }
        let manifest = serde_json::json!({ "skill": name, "files": manifest });
        // A file of the skill's own named `_manifest` is what that URI reads.
        self.files
            .entry(format!("{dir_uri}/{MANIFEST}"))
            .or_insert_with(|| SkillFile {
                name: format!("{named}/{MANIFEST}"),
                bytes: Arc::from(serde_json::to_vec_pretty(&manifest).unwrap_or_default()),
                mime_type: "application/json".to_owned(),
            });
        self.skills.insert(
            skill_uri.clone(),
            Skill {
                uri: skill_uri,
                frontmatter: front,
                resources: SkillResources::Listed(listed),
            },
        );
        Ok(())
    }

    /// Records file `path` (its URI `uri`, its size and MIME type) in the directories of
    /// the skill at `dir_uri`: each directory on its path lists the next one, the last the
    /// file.
    fn add_to_directories(&mut self, dir_uri: &str, path: &[String], uri: &str, size: u64, mime_type: &str) {
        let mut parent = dir_uri.to_owned();
        for (depth, segment) in path.iter().enumerate() {
            let child = format!("{parent}/{}", encode(segment));
            let is_file = depth + 1 == path.len();
            let resource = Resource {
                uri: if is_file { uri.to_owned() } else { child.clone() },
                name: segment.clone(),
                title: None,
                description: None,
                mime_type: Some(if is_file { mime_type } else { DIRECTORY_MIME_TYPE }.to_owned()),
                annotations: None,
                size: is_file.then_some(size),
                icons: None,
                meta: None,
            };
            self.directories
                .entry(parent)
                .or_default()
                .entry(resource.uri.clone())
                .or_insert(resource);
            parent = child;
        }
    }

    /// Whether there are no skills.
    pub(crate) fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// The resources that list the skills at `uris` (of their `SKILL.md`), as `listing` says.
    pub(crate) fn resources(&self, uris: &[String], listing: SkillListing) -> Vec<Resource> {
        let skills = uris.iter().filter_map(|uri| self.skills.get(uri));
        match listing {
            SkillListing::Entries => skills
                .map(|skill| Resource {
                    name: skill.name().unwrap_or_default().to_owned(),
                    size: self.files.get(&skill.uri).map(|file| file.bytes.len() as u64),
                    ..listed(&skill.uri, "text/markdown", skill.description())
                })
                .collect(),
            SkillListing::Files => skills
                .flat_map(|skill| {
                    let SkillResources::Listed(files) = &skill.resources else {
                        return Vec::new();
                    };
                    let manifest = format!("{}{MANIFEST}", skill.uri.trim_end_matches("SKILL.md"));
                    let described = |uri: &str| (uri == skill.uri).then(|| skill.description()).flatten();
                    files
                        .iter()
                        .map(|file| file.uri.as_str())
                        .chain([manifest.as_str()])
                        .filter_map(|uri| {
                            let file = self.files.get(uri)?;
                            let description = match described(uri) {
                                None if uri == manifest => Some(format!("File listing for {}", skill.name()?)),
                                said => said.map(str::to_owned),
                            };
                            Some(Resource {
                                name: file.name.clone(),
                                ..listed(uri, &file.mime_type, description.as_deref())
                            })
                        })
                        .collect()
                })
                .collect(),
        }
    }

    /// The URIs of the skills' `SKILL.md`, in the order found.
    pub(crate) fn uris(&self) -> Vec<String> {
        self.skills.keys().cloned().collect()
    }

    /// The contents of skill file `uri`, if it is one: text when it is UTF-8, else bytes.
    pub(crate) fn read(&self, uri: &str) -> Option<ReadResourceResult> {
        let file = self.files.get(uri)?;
        let mut contents = match std::str::from_utf8(&file.bytes) {
            Ok(text) => ResourceContents::text(uri, text),
            Err(_) => ResourceContents::blob(uri, base64::engine::general_purpose::STANDARD.encode(&file.bytes)),
        };
        match &mut contents {
            ResourceContents::Text(text) => text.mime_type = Some(file.mime_type.clone()),
            ResourceContents::Blob(blob) => blob.mime_type = Some(file.mime_type.clone()),
        }
        Some(ReadResourceResult {
            contents: vec![contents],
            result_type: None,
            meta: None,
            ttl_ms: None,
            cache_scope: None,
        })
    }
}

/// A listed resource of a skill at `uri`: named after it until the caller names it.
fn listed(uri: &str, mime_type: &str, description: Option<&str>) -> Resource {
    Resource {
        uri: uri.to_owned(),
        name: uri.to_owned(),
        title: None,
        description: description.map(str::to_owned),
        mime_type: Some(mime_type.to_owned()),
        annotations: None,
        size: None,
        icons: None,
        meta: None,
    }
}

/// The skills a server serves now: skills added after it was built take the place of
/// what was here, so each request reads one whole set.
pub(crate) type SharedSkills = Arc<RwLock<Arc<Skills>>>;

/// The skills in `shared`, as they are now.
pub(crate) fn current(shared: &SharedSkills) -> Arc<Skills> {
    Arc::clone(&shared.read().unwrap_or_else(|e| e.into_inner()))
}

/// The skills extension's entry of the skill whose files are `files` (each by its path in
/// the skill, `SKILL.md` among them) at `skill://<its name>/`, once they are checked as a
/// server checks a skill it serves: relative paths that stay in it, within the extension's
/// limits, a `SKILL.md` whose front matter has a valid `name` and a `description`. Its
/// resources list each file's digest and size; for a skill made in code, before it is
/// served.
pub fn skill_entry(files: Vec<(String, Vec<u8>)>) -> Result<Skill, DefinitionError> {
    let named = files
        .iter()
        .find(|(path, _)| path == "SKILL.md")
        .and_then(|(_, bytes)| std::str::from_utf8(bytes).ok())
        .and_then(|text| frontmatter(text).ok())
        .and_then(|front| front.get("name").and_then(Value::as_str).map(str::to_owned))
        .filter(|name| is_skill_name(name))
        .ok_or_else(|| {
            DefinitionError::new(
                "a skill needs a SKILL.md of UTF-8 text whose front matter's `name` is 1 to 64 of a-z, 0-9 and single inner hyphens",
            )
        })?;
    let mut skills = Skills::default();
    skills.add_skill(&named, files).map_err(DefinitionError::new)?;
    Ok(skills.skills.into_values().next().expect("an empty set adds the skill"))
}

/// Reads the files of a server's skills, as a resource handler.
pub(crate) struct SkillFiles(pub(crate) SharedSkills);

impl ResourceHandler for SkillFiles {
    fn read(
        &self,
        uri: String,
        _variables: BTreeMap<String, String>,
        _ctx: Context,
    ) -> BoxFuture<'static, Result<ReadResourceResult, HandlerError>> {
        let read = current(&self.0).read(&uri).ok_or(HandlerError::ResourceNotFound(uri));
        Box::pin(std::future::ready(read))
    }
}

impl Skills {
    /// Whether `uri` is a file of one of the skills.
    pub(crate) fn has_file(&self, uri: &str) -> bool {
        self.files.contains_key(uri)
    }
}

/// `skills/list`: a page of the skills, by URI, with the server's cache hints (the
/// extension requires them in every era).
pub(super) fn list(server: &Server, params: Option<&RawValue>, stamp: Option<&Stamp>) -> Outcome {
    let cursor: CursorParams = parse_params(params)?;
    // By URI, as FastMCP lists them, whatever order they were added in.
    let mut skills = server.skills().skills.clone();
    skills.sort_unstable_keys();
    let (page, next_cursor) = page(&skills, cursor.cursor.as_deref(), server.page_size())?;
    let mut result = ListSkillsResult {
        skills: page.values().cloned().collect(),
        next_cursor,
        ..Default::default()
    };
    server.stamp_cache_hints(&mut result, false, CacheScope::Public);
    finish(result, stamp)
}

/// `skills/get`: the skill whose `SKILL.md` is at the URI; -32602 for any other URI.
pub(super) fn get(server: &Server, params: Option<&RawValue>, stamp: Option<&Stamp>) -> Outcome {
    let params: GetSkillRequestParams = parse_params(params)?;
    let skill = server.skills().skills.get(&params.uri).cloned().ok_or_else(|| {
        ErrorObject::invalid_params(format!("no skill at {}", params.uri))
            .with_data(serde_json::json!({ "uri": params.uri }))
    })?;
    let mut result = GetSkillResult {
        skill,
        result_type: None,
        meta: None,
        ttl_ms: None,
        cache_scope: None,
    };
    server.stamp_cache_hints(&mut result, false, CacheScope::Public);
    finish(result, stamp)
}

/// `resources/directory/read`: a page of a skill directory's direct children; -32602
/// for a URI that is not one of the skills' directories.
pub(super) fn read_directory(server: &Server, params: Option<&RawValue>, stamp: Option<&Stamp>) -> Outcome {
    let params: DirectoryReadRequestParams = parse_params(params)?;
    let skills = server.skills();
    let children = skills.directories.get(&params.uri).ok_or_else(|| {
        ErrorObject::invalid_params(format!("{} is not a directory of this server's skills", params.uri))
            .with_data(serde_json::json!({ "uri": params.uri }))
    })?;
    let (page, next_cursor) = page(children, params.cursor.as_deref(), server.page_size())?;
    let result = DirectoryReadResult {
        resources: page.values().cloned().collect(),
        next_cursor,
        ..Default::default()
    };
    finish(result, stamp)
}

/// The directories under `dir` (`path` deep in the root) that hold a `SKILL.md`, in name
/// order, as paths of segments; hidden entries are skipped.
fn find_skills(dir: &Path, path: &mut Vec<String>, found: &mut Vec<Vec<String>>) -> std::io::Result<()> {
    if !path.is_empty() && dir.join("SKILL.md").is_file() {
        found.push(path.clone());
    }
    for (name, entry) in entries(dir)? {
        if entry.is_dir() {
            path.push(name);
            find_skills(&entry, path, found)?;
            path.pop();
        }
    }
    Ok(())
}

/// Every file under `dir`, in name order, with its path below `dir` and its bytes.
fn collect_files(dir: &Path, path: &mut Vec<String>, files: &mut Vec<(Vec<String>, Vec<u8>)>) -> std::io::Result<()> {
    for (name, entry) in entries(dir)? {
        path.push(name);
        if entry.is_dir() {
            collect_files(&entry, path, files)?;
        } else if entry.is_file() {
            files.push((path.clone(), fs::read(&entry)?));
        }
        path.pop();
    }
    Ok(())
}

/// The entries of `dir` that are not hidden, by name, in name order.
fn entries(dir: &Path) -> std::io::Result<Vec<(String, std::path::PathBuf)>> {
    let mut entries = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if !name.starts_with('.') {
            entries.push((name, entry.path()));
        }
    }
    entries.sort();
    Ok(entries)
}

/// The segments of relative path `path`; None when it is empty, absolute, or has an empty,
/// `.` or `..` segment.
fn relative_segments(path: &str) -> Option<Vec<String>> {
    let segments: Vec<String> = path.split('/').map(str::to_owned).collect();
    let valid = segments
        .iter()
        .all(|s| !s.is_empty() && s != "." && s != ".." && !s.contains('\\'));
    valid.then_some(segments)
}

/// The `skill://` URI of the skill directory at `segments` (no trailing slash).
fn skill_uri(segments: &[String]) -> String {
    let path: Vec<String> = segments.iter().map(|s| encode(s)).collect();
    format!("skill://{}", path.join("/"))
}

fn encode(segment: &str) -> String {
    utf8_percent_encode(segment, SEGMENT).to_string()
}

/// The Agent Skills naming rule: 1 to 64 of `a-z`, `0-9` and `-`, no hyphen first, last
/// or twice in a row.
fn is_skill_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// A file's MIME type from its name, `text/plain` for other text, else
/// `application/octet-stream`.
fn mime_type(name: &str, bytes: &[u8]) -> String {
    if name.ends_with(".md") {
        return "text/markdown".to_owned();
    }
    // A skill's scripts, which the MIME database leaves as plain text.
    if name.ends_with(".py") {
        return "text/x-python".to_owned();
    }
    match mime_guess::from_path(name).first() {
        Some(mime) => mime.essence_str().to_owned(),
        None if std::str::from_utf8(bytes).is_ok() => "text/plain".to_owned(),
        None => "application/octet-stream".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loaded(root: &Path) -> Result<Skills, DefinitionError> {
        let mut skills = Skills::default();
        skills.load(root)?;
        Ok(skills)
    }

    fn write_skill(root: &Path, name: &str, files: &[(&str, &str)]) {
        let dir = root.join(name);
        fs::create_dir_all(&dir).unwrap();
        let front = format!("---\nname: {name}\ndescription: The {name} skill\n---\n");
        fs::write(dir.join("SKILL.md"), front).unwrap();
        for (file, text) in files {
            fs::write(dir.join(file), text).unwrap();
        }
    }

    #[test]
    fn a_files_listing_names_each_file_by_its_path_and_adds_the_manifest() {
        let root = tempfile::tempdir().unwrap();
        write_skill(root.path(), "review", &[("notes.md", "Notes.")]);
        let skills = loaded(root.path()).unwrap();
        let listed = skills.resources(&skills.uris(), SkillListing::Files);
        let seen: Vec<_> = listed
            .iter()
            .map(|r| {
                (
                    r.uri.as_str(),
                    r.name.as_str(),
                    r.description.as_deref(),
                    r.mime_type.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                (
                    "skill://review/SKILL.md",
                    "review/SKILL.md",
                    Some("The review skill"),
                    Some("text/markdown")
                ),
                (
                    "skill://review/notes.md",
                    "review/notes.md",
                    None,
                    Some("text/markdown")
                ),
                (
                    "skill://review/_manifest",
                    "review/_manifest",
                    Some("File listing for review"),
                    Some("application/json")
                ),
            ]
        );
        let entries = skills.resources(&skills.uris(), SkillListing::Entries);
        assert_eq!(entries.len(), 1);
        assert_eq!((entries[0].name.as_str(), entries[0].size), ("review", Some(51)));
        let ResourceContents::Text(manifest) = &skills.read("skill://review/_manifest").unwrap().contents[0] else {
            panic!("a text manifest")
        };
        let manifest: Value = serde_json::from_str(&manifest.text).unwrap();
        assert_eq!(manifest["skill"], "review");
        assert_eq!(manifest["files"][1]["path"], "notes.md");
        assert_eq!(manifest["files"][1]["size"], 6);
        assert_eq!(manifest["files"][1]["hash"], digest(b"Notes."));
    }

    #[test]
    fn a_skill_made_in_code_is_served_and_paths_that_leave_it_are_refused() {
        let skill_md = || {
            (
                "SKILL.md".to_owned(),
                b"---\nname: deploy\ndescription: Deploys\n---\n".to_vec(),
            )
        };
        let mut skills = Skills::default();
        let notes = ("docs/notes.md".to_owned(), b"Notes.".to_vec());
        skills.add_skill("ops/deploy", vec![skill_md(), notes]).unwrap();
        assert_eq!(skills.uris(), ["skill://ops/deploy/SKILL.md"]);
        assert!(skills.read("skill://ops/deploy/docs/notes.md").is_some());
        for (path, file) in [
            ("../deploy", "SKILL.md"),
            ("deploy", "../SKILL.md"),
            ("/deploy", "SKILL.md"),
        ] {
            let refused = Skills::default().add_skill(path, vec![(file.to_owned(), Vec::new()), skill_md()]);
            assert!(refused.unwrap_err().contains("is not a relative path"), "{path} {file}");
        }
        let both = vec![
            skill_md(),
            ("docs".to_owned(), Vec::new()),
            ("docs/a.md".to_owned(), Vec::new()),
        ];
        let refused = Skills::default().add_skill("deploy", both).unwrap_err();
        assert!(refused.contains("is both a file and"), "{refused}");
        let bare = Skills::default().add_skill("deploy", vec![("notes.md".to_owned(), Vec::new())]);
        assert_eq!(bare.unwrap_err(), "skill://deploy has no SKILL.md");
    }

    #[test]
    fn a_mounted_servers_skills_are_served_under_its_namespace() {
        let root = tempfile::tempdir().unwrap();
        write_skill(root.path(), "review", &[("notes.md", "Notes.")]);
        let theirs = loaded(root.path()).unwrap();
        let mut ours = Skills::default();
        ours.add_from(&theirs, Some("kid")).unwrap();
        assert_eq!(ours.uris(), ["skill://kid/review/SKILL.md"]);
        let ResourceContents::Text(notes) = &ours.read("skill://kid/review/notes.md").unwrap().contents[0] else {
            panic!("a text file")
        };
        assert_eq!(notes.text, "Notes.");
        let SkillResources::Listed(files) = &ours.skills["skill://kid/review/SKILL.md"].resources else {
            panic!("listed files")
        };
        assert_eq!(files.iter().map(|f| f.size).collect::<Vec<_>>(), [51, 6]);
        // Its resources keep their names; mounted again, it keeps its place below the first.
        let listed = ours.resources(&ours.uris(), SkillListing::Files);
        assert_eq!(listed[0].name, "review/SKILL.md");
        let mut outer = Skills::default();
        outer.add_from(&ours, Some("top")).unwrap();
        assert_eq!(outer.uris(), ["skill://top/kid/review/SKILL.md"]);
    }

    #[test]
    fn a_skills_entry_is_made_from_its_files_as_they_would_be_served() {
        let skill_md = "---\nname: deploy\ndescription: Deploys\n---\n";
        let entry = skill_entry(vec![
            ("SKILL.md".to_owned(), skill_md.into()),
            ("a.md".to_owned(), b"A".to_vec()),
        ])
        .unwrap();
        assert_eq!(entry.uri, "skill://deploy/SKILL.md");
        let SkillResources::Listed(files) = &entry.resources else {
            panic!("listed files")
        };
        assert_eq!(files[0].uri, "skill://deploy/SKILL.md");
        assert_eq!((files[1].size, files[1].digest.as_str()), (1, digest(b"A").as_str()));
        let long = format!("---\nname: deploy\ndescription: {}\n---\n", "x".repeat(1025));
        let refused = skill_entry(vec![("SKILL.md".to_owned(), long.into())]).unwrap_err();
        assert!(refused.to_string().contains("longer than 1024"), "{refused}");
        let unnamed = skill_entry(vec![("SKILL.md".to_owned(), b"no front matter".to_vec())]).unwrap_err();
        assert!(unnamed.to_string().contains("needs a SKILL.md"), "{unnamed}");
    }

    #[test]
    fn the_first_root_keeps_a_skill_two_roots_have() {
        let (first, second) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        write_skill(first.path(), "review", &[("a.md", "first")]);
        write_skill(second.path(), "review", &[("b.md", "second")]);
        write_skill(second.path(), "deploy", &[]);
        let mut skills = loaded(first.path()).unwrap();
        skills.load(second.path()).unwrap();
        assert_eq!(skills.uris(), ["skill://review/SKILL.md", "skill://deploy/SKILL.md"]);
        assert!(skills.read("skill://review/a.md").is_some());
        assert!(skills.read("skill://review/b.md").is_none());
    }

    #[test]
    fn names_follow_the_agent_skills_rule() {
        for good in ["pdf-processing", "a", "x1-2"] {
            assert!(is_skill_name(good), "{good}");
        }
        for bad in ["", "-a", "a-", "a--b", "PDF", "a_b", &"a".repeat(65)] {
            assert!(!is_skill_name(bad), "{bad}");
        }
    }

    #[test]
    fn digests_are_sha256_in_lowercase_hex() {
        assert_eq!(
            digest(b"Supporting content.\n"),
            "sha256:8548b03927f40d7dc404fa49636c29e6b73df011d0764d69a6fc4f8ae06c6a12"
        );
    }

    #[test]
    fn a_skill_lists_every_file_and_its_directories() {
        let root = tempfile::tempdir().unwrap();
        let skill = root.path().join("docs").join("pdf-processing");
        fs::create_dir_all(skill.join("references")).unwrap();
        fs::write(
            skill.join("SKILL.md"),
            "---\nname: pdf-processing\ndescription: Extract PDF text\n---\n\nBody.\n",
        )
        .unwrap();
        fs::write(skill.join("references").join("FORMS guide.md"), "Forms.\n").unwrap();
        fs::write(root.path().join("README.md"), "not a skill").unwrap();
        let skills = loaded(root.path()).unwrap();
        let entry = &skills.skills["skill://docs/pdf-processing/SKILL.md"];
        let SkillResources::Listed(files) = &entry.resources else {
            panic!("listed files")
        };
        let uris: Vec<&str> = files.iter().map(|f| f.uri.as_str()).collect();
        assert_eq!(
            uris,
            [
                "skill://docs/pdf-processing/SKILL.md",
                "skill://docs/pdf-processing/references/FORMS%20guide.md"
            ]
        );
        let root_dir = &skills.directories["skill://docs/pdf-processing"];
        assert_eq!(
            root_dir["skill://docs/pdf-processing/references"].mime_type.as_deref(),
            Some(DIRECTORY_MIME_TYPE)
        );
        assert!(skills
            .read("skill://docs/pdf-processing/references/FORMS%20guide.md")
            .is_some());
        assert!(skills.read("skill://docs/README.md").is_none());
    }

    #[test]
    fn a_skill_whose_name_is_not_its_directorys_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let skill = root.path().join("pdf");
        fs::create_dir_all(&skill).unwrap();
        fs::write(skill.join("SKILL.md"), "---\nname: other\ndescription: d\n---\n").unwrap();
        let error = loaded(root.path()).err().expect("refused");
        assert!(error.to_string().contains("must be its directory's name"), "{error}");
    }
}
