//! Using a server's Agent Skills (the skills extension, SEP-2640): listing them, loading
//! one (its `SKILL.md`, checked against the entry the listing gave), and reading its other
//! files when they are needed, each checked the same way. Nothing is fetched ahead of
//! need: listing reads no skill file.

use base64::Engine;
use serde_json::{Map, Value};

use super::pages::Page;
use super::requests::cursor_params;
use super::{CallOptions, Client};
use crate::error::{Error, Result};
use crate::protocol::skills::{
    digest, frontmatter, GetSkillResult, ListSkillsResult, Skill, SkillResources, EXTENSION,
};
use crate::protocol::{methods, ResourceContents};

impl Client {
    /// Whether the server declared the skills extension (in either era's capabilities).
    pub fn offers_skills(&self) -> bool {
        self.server_details()
            .capabilities
            .extensions
            .is_some_and(|extensions| extensions.contains_key(EXTENSION))
    }

    /// Every skill the server lists (`skills/list`, following cursors). Reads no skill
    /// file. [`Error::Unsupported`] when the server does not offer skills.
    pub async fn list_skills(&self) -> Result<Vec<Skill>> {
        self.require_skills()?;
        let (skills, _) = self
            .collect_pages(methods::SKILLS_LIST, |cursor| async move {
                let page: ListSkillsResult = self
                    .request(methods::SKILLS_LIST, cursor_params(cursor), &CallOptions::default())
                    .await?;
                Ok(Page::new(page.skills, page.next_cursor, page.ttl_ms))
            })
            .await?;
        Ok(skills)
    }

    /// The skill whose `SKILL.md` is at `uri` (`skills/get`), listed or not.
    pub async fn get_skill(&self, uri: &str) -> Result<Skill> {
        self.require_skills()?;
        let params = Map::from_iter([("uri".to_owned(), Value::from(uri))]);
        let result: GetSkillResult = self
            .request(methods::SKILLS_GET, params, &CallOptions::default())
            .await?;
        Ok(result.skill)
    }

    /// Loads `skill`: reads its `SKILL.md` and returns its text once it matches the entry:
    /// the size and digest the entry lists for it, and the front matter, field by field.
    /// A mismatch is [`Error::Verification`] and the skill must not be used. Its other
    /// files are read when needed, with [`Client::read_skill_file`].
    pub async fn load_skill(&self, skill: &Skill) -> Result<String> {
        let bytes = self.read_skill_file(skill, &skill.uri).await?;
        let text =
            String::from_utf8(bytes).map_err(|_| Error::Verification(format!("{} is not UTF-8 text", skill.uri)))?;
        let read = frontmatter(&text).map_err(|e| Error::Verification(format!("{}: {e}", skill.uri)))?;
        let fields: std::collections::BTreeSet<&String> = read.keys().chain(skill.frontmatter.keys()).collect();
        for field in fields {
            if read.get(field) != skill.frontmatter.get(field) {
                return Err(Error::Verification(format!(
                    "{}: its front matter's {field:?} differs from the skill's entry",
                    skill.uri
                )));
            }
        }
        Ok(text)
    }

    /// Reads file `uri` of `skill` (`resources/read`) and returns its bytes once they
    /// match the entry: a skill that lists its files must list this one, with this size
    /// and digest; a `"dynamic"` skill's files cannot be checked and are returned as read.
    pub async fn read_skill_file(&self, skill: &Skill, uri: &str) -> Result<Vec<u8>> {
        let listed = match &skill.resources {
            SkillResources::Listed(_) => Some(skill.resource(uri).ok_or_else(|| {
                Error::Verification(format!("{uri} is not one of the files the skill {} lists", skill.uri))
            })?),
            SkillResources::Dynamic(_) => None,
        };
        let read = self.read_resource(uri).await?;
        let bytes = match read.contents.into_iter().next() {
            Some(ResourceContents::Text(text)) => text.text.into_bytes(),
            Some(ResourceContents::Blob(blob)) => base64::engine::general_purpose::STANDARD
                .decode(blob.blob)
                .map_err(|e| Error::InvalidResponse(format!("{uri}: the blob is not base64: {e}")))?,
            None => return Err(Error::InvalidResponse(format!("{uri}: the read returned no contents"))),
        };
        if let Some(listed) = listed {
            if bytes.len() as u64 != listed.size {
                return Err(Error::Verification(format!(
                    "{uri} has {} bytes where the skill's entry says {}",
                    bytes.len(),
                    listed.size
                )));
            }
            if digest(&bytes) != listed.digest {
                return Err(Error::Verification(format!(
                    "{uri} does not have the digest the skill's entry gives"
                )));
            }
        }
        Ok(bytes)
    }

    fn require_skills(&self) -> Result<()> {
        if self.offers_skills() {
            Ok(())
        } else {
            Err(Error::Unsupported(format!(
                "the server does not offer skills ({EXTENSION})"
            )))
        }
    }
}
