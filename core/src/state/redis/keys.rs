//! The keys that seal `requestState`, shared by every replica through Redis and rotated on
//! a schedule: the first replica that finds the newest key too old makes the next one, and
//! a replaced key still opens state for a while.

use std::io;
use std::time::Duration;

use redis::Script;

use super::{failed, RedisStore};
use crate::state::{KeyRing, SealingKey};

/// How often the shared sealing key is replaced, by default.
pub const KEY_ROTATION: Duration = Duration::from_secs(24 * 60 * 60);
/// How long a replaced key still opens state, by default: longer than state lives.
pub const KEY_OVERLAP: Duration = Duration::from_secs(60 * 60);
/// The longest a replica goes without looking for a new key.
const MAX_REFRESH: Duration = Duration::from_secs(60);

/// The keys of the hash `KEYS[1]` (field: when the key was made, in Redis's clock, in
/// ms; value: the secret): when there are none (a Redis that restarted, or the first
/// replica), `ARGV[4]` (the key the caller seals with, or a fresh one) is the first; when
/// the newest is `ARGV[2]` ms old, `ARGV[1]` (fresh) is the next. Those replaced more than
/// `ARGV[3]` ms ago are dropped. Gives the secrets, newest first.
const ROTATE: &str = r"
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local every, overlap = tonumber(ARGV[2]), tonumber(ARGV[3])
local made = {}
local fields = redis.call('HKEYS', KEYS[1])
for i = 1, #fields do made[#made + 1] = tonumber(fields[i]) end
table.sort(made)
if #made == 0 then
  redis.call('HSET', KEYS[1], string.format('%d', now), ARGV[4])
  made[1] = now
elseif now - made[#made] >= every then
  redis.call('HSET', KEYS[1], string.format('%d', now), ARGV[1])
  made[#made + 1] = now
end
local kept = {}
for i = 1, #made do
  local field = string.format('%d', made[i])
  if i < #made and now - made[i + 1] > overlap then
    redis.call('HDEL', KEYS[1], field)
  else
    table.insert(kept, 1, redis.call('HGET', KEYS[1], field))
  end
end
redis.call('PEXPIRE', KEYS[1], every + overlap)
return kept
";

/// How a store rotates its sealing keys.
#[derive(Debug, Clone, Copy)]
pub(super) struct Rotation {
    pub(super) every: Duration,
    pub(super) overlap: Duration,
}

impl Default for Rotation {
    fn default() -> Self {
        Rotation {
            every: KEY_ROTATION,
            overlap: KEY_OVERLAP,
        }
    }
}

impl RedisStore {
    /// The keys that seal `requestState`, shared by every replica on this Redis, so that
    /// the rounds of a multi round-trip request may land on any replica. The first replica
    /// makes a key (32 random bytes); every [`KEY_ROTATION`] one of them makes the next,
    /// and a replaced key opens state for [`KEY_OVERLAP`] more (set both with
    /// [`key_rotation`](Self::key_rotation)). The ring follows the rotation while anything
    /// holds it (call this within a tokio runtime).
    pub async fn key_ring(&self) -> io::Result<KeyRing> {
        let secrets = self.rotate_keys(random_secret()?).await?;
        let ring = KeyRing::new(keys(&secrets)).ok_or_else(|| io::Error::other("no sealing key"))?;
        tokio::spawn(follow_rotation(self.clone(), ring.clone(), secrets[0]));
        Ok(ring)
    }

    /// Replaces the shared sealing key `every` so long, and lets a replaced key open state
    /// for `overlap` more (longer than the server's request-state TTL).
    pub fn key_rotation(mut self, every: Duration, overlap: Duration) -> Self {
        self.rotation = Rotation { every, overlap };
        self
    }

    /// The secrets of the shared keys, newest first, rotated if it is time; `sealing` is
    /// the first key when Redis has none.
    async fn rotate_keys(&self, sealing: [u8; 32]) -> io::Result<Vec<[u8; 32]>> {
        let millis = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1);
        let secrets: Vec<Vec<u8>> = Script::new(ROTATE)
            .key(self.key("sealing-keys"))
            .arg(&random_secret()?[..])
            .arg(millis(self.rotation.every))
            .arg(millis(self.rotation.overlap))
            .arg(&sealing[..])
            .invoke_async(&mut self.connection.clone())
            .await
            .map_err(failed)?;
        let secrets = secrets
            .into_iter()
            .map(|secret| {
                secret
                    .try_into()
                    .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "a shared sealing key is not 32 bytes"))
            })
            .collect::<io::Result<Vec<[u8; 32]>>>()?;
        if secrets.is_empty() {
            return Err(io::Error::other("Redis kept no sealing key"));
        }
        Ok(secrets)
    }
}

fn random_secret() -> io::Result<[u8; 32]> {
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret).map_err(|e| io::Error::other(e.to_string()))?;
    Ok(secret)
}

fn keys(secrets: &[[u8; 32]]) -> Vec<SealingKey> {
    secrets.iter().map(|secret| SealingKey::from_bytes(*secret)).collect()
}

/// Keeps `ring` in step with the shared keys, looking often enough to see a rotation well
/// within the overlap, until nothing else holds the ring. `sealing` is the key the ring
/// seals with: a Redis that lost the keys (restarted) gets it back, so that the replicas,
/// which all seal with it, go on opening each other's state.
async fn follow_rotation(redis: RedisStore, ring: KeyRing, mut sealing: [u8; 32]) {
    let period = (redis.rotation.every.min(redis.rotation.overlap) / 4).clamp(Duration::from_millis(10), MAX_REFRESH);
    loop {
        tokio::time::sleep(period).await;
        if !ring.is_shared() {
            return;
        }
        match redis.rotate_keys(sealing).await {
            Ok(secrets) => {
                sealing = secrets[0];
                ring.replace(keys(&secrets));
            }
            // The keys in hand go on sealing and opening; the next look may succeed.
            Err(error) => tracing::warn!(%error, "could not read the shared sealing keys"),
        }
    }
}
