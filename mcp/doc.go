// Package mcp is askbridge's MCP server: it gives a model the ask_user
// tool, which carries its questions to people through a bridge and hands
// their answers back as the tool's result, plus get_answer and
// cancel_question for questions asked without waiting.
//
// The package speaks MCP with the official Go SDK and knows nothing of
// the bridge's internals: every question goes through an [Asker], whose
// methods are those of the Go client (*client.Client implements it). The
// stdio server (`bridge mcp`) uses a client pointed at a running bridge;
// `bridge serve` mounts [Server.HTTPHandler] at /mcp with an Asker bound
// to the calling agent's key.
//
// A call flows like this: the tool's arguments are decoded strictly
// (unknown fields and wrong types are tool errors naming the field), the
// question is submitted with the MCP session id as session_id and the
// request's progress token as tool_call_id, so that a retried call with
// the same token finds the same question; while it waits, progress
// notifications keep the client from timing out; when the MCP request is
// cancelled the question is cancelled too. The outcome becomes a text
// block written for the model and the same data as structured content.
//
// Over HTTP every client holds a session, which costs memory until it
// ends. Sessions are counted per agent (sessions.go): a new one beyond
// Config.SessionsPerAgent closes the agent's least recently used idle
// session, or is refused with 429 when all of them have a request under
// way (sessionlimit.go); a session without requests for SessionTimeout is
// closed by the SDK. Either way its client gets 404 and starts anew.
package mcp
