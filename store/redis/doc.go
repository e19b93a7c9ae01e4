// Package redis is the production broker.Store: questions, posted copies,
// the resolution event log and the callback outbox in Redis (standalone,
// Sentinel or Cluster, through go-redis's UniversalClient), plus a leader
// lease (Elector) for work that only one bridge instance may run.
//
// # Key layout
//
// Every key starts with the configured prefix P (default "askbridge:").
// Questions are spread over 16 shards; shard N = crc32(id) % 16, and every
// key of a shard carries the hash tag {sN}, so a question's record and the
// index entries that change with it share one hash slot:
//
//	P{sN}:q:<id>             hash: the question's changing parts (below)
//	P{sN}:j:<id>             string: the question's static part (JSON)
//	P{sN}:f:<id>             hash: files sent with answers (attachments.go),
//	                         expiring with the record
//	P{sN}:au:<id>            list: the question's audit trail, sealed
//	                         entries (JSON, audit.go), kept past the
//	                         record: it expires the audit retention plus
//	                         the longest lifetime after it opens or after
//	                         its newest append (the resolution's aside)
//	P{sN}:ax                 zset "<id>\t<seq, 10 digits>\t<agent>" ->
//	                         entry time (ms): the shard's audit export
//	                         index (audit_export.go), trimmed by age
//	P{sN}:tm                 zset id -> the earlier of the next reminder
//	                         and the deadline (µs); pending only (timers.go)
//	P{sN}:due                zset id -> deadline (µs); pending questions of
//	                         layouts 1 and 2 only
//	P{sN}:rem                zset id -> next reminder (µs); the same
//	P{sN}:lease              zset id -> lease end (µs); pending only
//	P{sN}:all                zset id -> created (µs)
//	P{sN}:ag:<agent>         zset id -> created, per agent
//	P{sN}:as:<agent>\0<session>  zset id -> created, per agent's session
//	P{sN}:ss:<session>       zset id -> created, per session id of every
//	                         agent: written by older versions, read by
//	                         List beside the above and emptied by Purge
//	P{sN}:ch:<channel>\0<chat>  zset id -> created, questions posted there
//	                         (copies that name a chat only)
//	P{sN}:done               zset id -> resolved (µs): written by older
//	                         versions for Purge, which now empties it
//	P{sN}:ob                 zset id -> next delivery attempt (µs)
//	P{sN}:unl                zset id -> resolved (µs): event maybe unlogged
//	                         (Cluster only)
//	P{sN}:unx                zset "<id>\t<n>" -> marked (µs): extended
//	                         event of snooze n maybe unlogged (extended.go)
//	P{sK}:k:<digest>         string "<id>:<ms>": idempotency key -> id,
//	                         K = crc32(digest) % 16, digest = sha256 of
//	                         agent, session and tool call id (128 bits hex)
//	Pl:<channel>\0<chat>\0<message>    string: platform message -> id
//	P{ev}:seq                counter of event sequence numbers
//	P{ev}:a:<agent>          zset seq -> "<at µs> <event JSON>": the
//	                         agent's events (every agent's: the logs
//	                         merged by seq; events.go)
//	P{ev}:log                the same for every agent, written by older
//	                         versions only; Purge trims it away
//	P{ev}:ids                hash id -> "<seq> <agent>" (the resolution
//	                         event of a question resolved on Cluster, or
//	                         by an older version; elsewhere the record's
//	                         es names it), "<id>\tx<n>" -> the same for
//	                         the extended event of snooze n
//	P{ev}:p:<agent>          zset id -> end (µs): the agent's pending
//	                         questions, for the cap; end is an hour after
//	                         the question's deadline
//	Presolved                pub/sub channel: "<id>\t<agent>" per resolution
//	                         and per extended event
//	Pleader:<name>           leader lease: instance id with a TTL
//	Pws:<digest>             string: a web inbox session's expiry (ms),
//	                         with a TTL; read alone, so it may hash anywhere
//	Prp:<key>                string "1" with a TTL: a webhook request already
//	                         taken (replay.go); read alone, so it may hash
//	                         anywhere
//	P{push}:vapid            string: the VAPID key pair (JSON), set once
//	                         with SET NX (push.go)
//	P{push}:p:<person>       hash endpoint -> push subscription (JSON)
//	P{push}:e                hash endpoint -> person: whose it is
//
// The body key holds what never changes (prompts, route, targets,
// deadline, callback URL...) as JSON. The record hash holds everything a
// script reads or changes in small fields, so that scripts never rewrite
// JSON and the hash stays a compact listpack: st (status), a (agent), se
// (session), cr (created), np (prompt count), an (the audit trail's
// length), r (resolution JSON), ra
// (resolved at), p<i> (progress of prompt i), s<i> (selection of prompt
// i), rs and rt (reminders sent, reminder times), dl (deadline, µs; a
// snooze's ex wins over it), lu (lease end), mn and
// m<n> (posted copies: channel, chat, message id, time, tab-separated),
// k (idempotency key), es (the seq of its resolution event, off
// Cluster), cb (callback URL) and the callback delivery in
// ds/da/dn/de/dc/du, and bv, a random version of the body drawn at
// creation: each Store keeps the bodies it wrote or read lately
// (bodies.go) and reads only the hash of a question whose bv it has,
// decoding a body at most once (not at all for one it created); bx (µs)
// is when the body expires: it gets a TTL at Create that outlasts the
// record of a question resolved by its deadline, so Resolve sets no TTL
// on it (bodySlack in create.go). A
// pending question with one posted copy takes about
// 1.5-1.9 KiB including its index entries (see docs/redis.md).
//
// # Scripts and slots
//
// Each change is one Lua script over keys of one slot: create (record and
// indexes; off Cluster also the pending set, below), resolve (the
// compare-and-set pending -> terminal, unindexing, outbox entry, record
// expiry; off Cluster also the event, below), save progress
// (first answer wins), set selection, claim reminder, renew lease, add
// message, claim and update delivery, purge of one shard. Scripts derive
// record keys from a prefix that carries the shard's tag, so they stay in
// the slot of the keys they are given.
//
// Four things cross slots and are ordered so that a crash leaves nothing
// wrong behind:
//   - An idempotent Create maps the key to the id (unless the key maps
//     already) and creates the record. On a single server or through
//     Sentinel, where one master holds every key, both are one script that
//     is given every key it touches; a Create that finds the id taken
//     leaves the key alone. On Cluster the key's shard is another slot, so
//     Create first reserves the key (SET unless present), then creates the
//     record in the id's shard, and releases the reservation if it finds
//     the id taken. A later Create with the same key finds the
//     reservation, reads the question, and waits briefly while its first
//     Create finishes; a reservation with no record that is older than
//     5 s (its Create died between the steps, or its record expired) is
//     taken over.
//   - Resolve's event goes to its agent's log in slot {ev} (one counter
//     orders all events, so Seq grows strictly), and the id is published.
//     Off Cluster the resolve script does it in the same step, deriving
//     the agent's log and pending set from prefixes (the agent is read
//     from the record there). On Cluster the script marks the question
//     in the shard's unl set and a second round trip logs the event; it is
//     idempotent per question. Due logs the events of marks older than
//     10 s and drops the marks, so a crash between the two steps loses no
//     event.
//   - AddMessage writes the message lookup key in the same pipeline as its
//     script; the key is only read alone, so it may hash anywhere.
//   - CreateCapped counts the question in its agent's pending set (slot
//     {ev}), refusing it when the set holds the cap. Off Cluster the
//     create script does it, so the check and the write are one step. On
//     Cluster a script in {ev} adds the entry (the check and the add are
//     one step, so instances together never pass the cap), then the
//     record is written; the entry is taken back when the id proves
//     taken, and one left by a crash in between lapses with its end.
//     Logging a resolution's event (slot {ev}, repaired by Due as above)
//     drops the entry.
//
// # Audit trails
//
// Lua has no SHA-256, so a store seals audit entries in Go after the end
// of the trail it last saw (the record's an field and the newest entry's
// hash), and every script that appends (create, add message, amend,
// resolve, add audit) first compares the trail's length: when another
// append came between, it changes nothing and answers the trail's end
// (and, for resolve, the record, from which the resolution's entry is
// built again), and the store seals again. The entries of a question's
// ask, copies and resolution are appended by the script of that change,
// so a cycle costs no round trip more; a store that does not know a
// trail's end (another instance appended last) pays one. Create opens the
// trail with RPUSH: a longer answer than the entries pushed means a
// purged question's trail is kept under the id, which is then taken.
//
// The export (AuditSince) reads the shards' export indexes, one script
// per shard in one pipeline, from the position it resumes after, merges
// them by time, id and seq, and reads the entries it picks with LINDEX.
// The index lives in each shard's slot, so that the script that appends
// an entry indexes it in the same step, on Cluster too; an index of
// question ids by creation time would need no write per entry, but an
// export by entry time would then read whole trails of questions created
// long before. A filter by agent is applied in the shard's script, which
// looks at 20,000 index entries at most per call and says where it
// stopped.
//
// Reads that span shards (List, Due, DueReminders, LapsedLeases,
// ClaimDeliveries) send one command or script per shard in one pipeline
// and merge the answers. List picks the most selective index (chat,
// session, agent, all) and filters the rest in its script; a channel
// without a chat scans all and checks the posted copies.
//
// A full ask -> answer cycle (Create, AddMessage, Resolve, Get) takes 4
// round trips, with or without an idempotency key; on Cluster 6, and 7
// with one.
//
// Scripts write with as few calls as they can: one HSET per record, one
// ZADD per index, one PEXPIRE per index key at most once a minute from
// each process (every index key gets the life of the longest-lived record,
// maximum lifetime plus retention, plus that minute: ttlmemo.go), and the
// trims by age on about one write in 16. The copies at in-process targets
// (web, cli) have no message lookup key: LookupMessage finds them in the
// record their message id names. Records carry their layout
// version (lv); a script that treats new records more cheaply keeps the
// old treatment for records without it, so older stores need no
// migration.
//
// A script that writes is sent once: after a read timeout or a dropped
// connection go-redis does not send it again, since it may have run
// (script.go). Reads and idempotent scripts keep the client's one retry.
//
// # Retention
//
// Resolve sets the record to expire after the retention (plus an hour, so
// that a Purge with the same horizon still finds it). Audit trails are
// kept apart, the audit retention (SetAuditRetention) plus the longest
// lifetime of a question after they open, renewed by appends; Purge
// leaves them, and PurgeAudit trims the export indexes to the retention.
// Lookup and idempotency keys expire after the question's deadline plus
// the retention. Index entries of expired records are dropped as List meets
// them and trimmed by age on about one write in 16 of their index; old
// events are trimmed on one logged event in 16. Purge removes resolved questions early
// and completely: record, index entries, lookups, idempotency key and
// events. It finds them through each shard's all index (created before
// its time) and the records' resolution times, so resolutions write no
// index of their own. Nothing needs a command newer than Redis 7.0.
//
// # Resolution feed
//
// Every Store subscribes once to Presolved and fans resolutions (id and
// agent; a bare id from an older bridge has no agent) out to its watchers
// without blocking; a watcher that fell behind gets "" (re-check
// everything) once it has room. After the subscription is lost and back,
// every watcher gets "", since ids published meanwhile are gone. Resolve
// also wakes local watchers directly.
package redis
