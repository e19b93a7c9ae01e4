package redis

// The Lua that several scripts share: prelude, which reads a record and
// its body, and sometimes, which picks the writes that trim an index.
// Each script lives in a scripts_<what>.go file or beside the code that
// runs it.

// prelude gives scripts the question body key of a record key
// ("...q:<id>" -> "...j:<id>", same tag, so same slot), its files key
// ("...f:<id>", attachments.go), packed(h), a flat HGETALL reply as one
// string (fromWhole), and whole(k), the record and its body as
// {packed HGETALL, body}.
//
// A record goes back packed because a reply of many strings costs the
// client two allocations per string (its bytes and the interface that
// holds it), about 120 for a record; one string costs one, and the
// record's fields are slices of it. Packed is the names and values
// joined by NUL bytes, which table.concat does in C; a record that holds
// a NUL goes back as the array it is, since it could not be split again
// (BenchmarkRecordReply; a length before each string would cost the
// script more than the client saves).
const prelude = `
local function jkey(k) return (string.gsub(k, 'q:([^:]*)$', 'j:%1')) end
local function fkey(k) return (string.gsub(k, 'q:([^:]*)$', 'f:%1')) end
local function akey(k) return (string.gsub(k, 'q:([^:]*)$', 'au:%1')) end
local function packed(h)
  if string.find(table.concat(h), '\0', 1, true) then return h end
  return table.concat(h, '\0')
end
local function whole(k) return {packed(redis.call('HGETALL', k)), redis.call('GET', jkey(k)) or ''} end
`

// Every script but createIdemScript touches keys of one hash slot only:
// the keys it is given and record keys it derives from a prefix that
// carries the same tag. createIdemScript runs only where one server holds
// every key (not on Cluster), and is given every key it touches.

// sometimesLua defines sometimes(id): true for about one id in 16 (ids
// are random), so that a script trims an index by age on one write in 16
// rather than on every write. Entries older than the horizon belong to
// expired records only; List drops those it meets anyway.
const sometimesLua = `
local function sometimes(id) return (string.byte(id, -1) + string.byte(id, 1)) % 16 == 0 end
`
