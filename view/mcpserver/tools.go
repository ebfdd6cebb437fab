package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"switchboard/bulletin"
	"switchboard/desk"
	"switchboard/internal/safetext"
	"switchboard/mailbox"
	"switchboard/rules/approvals"
)

// The tools' inputs and outputs. The jsonschema tags become the schemas'
// descriptions; a message's fields, which the commands share, are described
// by desk (see inputSchema).

type sendIn struct {
	To               []string `json:"to"`
	Title            string   `json:"title"`
	Content          string   `json:"content,omitempty"`
	Priority         string   `json:"priority,omitempty"`
	Type             string   `json:"type,omitempty"`
	RequiresResponse bool     `json:"requires_response,omitempty"`
}

type sentOut struct {
	ID      string   `json:"id" jsonschema:"the message's id"`
	Blocked []string `json:"blocked,omitempty" jsonschema:"recipients of a broadcast the rules kept it from, with why"`
	Queued  bool     `json:"queued,omitempty" jsonschema:"true when no master runs: it is delivered once one starts"`
}

type inboxIn struct {
	All bool `json:"all,omitempty" jsonschema:"include messages already read"`
}

type inboxOut struct {
	Messages []desk.Item `json:"messages"`
	// NotMessages are files in the inbox that are no message, so that
	// switchboard did not deliver them, each with why it is none.
	NotMessages []string `json:"not_messages,omitempty" jsonschema:"files in the inbox that are no message: switchboard did not deliver them (UNVERIFIED)"`
}

type readIn struct {
	ID   string `json:"id,omitempty" jsonschema:"the message's id (or a unique prefix); leave it out for the next unread message, urgent first"`
	Peek bool   `json:"peek,omitempty" jsonschema:"leave the message unread"`
}

type readOut struct {
	Message    *mailbox.Message `json:"message"`
	Unverified bool             `json:"unverified" jsonschema:"true for a file written into your inbox by hand: nothing vouches for its sender or content"`
}

type replyIn struct {
	ID       string `json:"id" jsonschema:"the id of the message you answer (or a unique prefix)"`
	Content  string `json:"content,omitempty"`
	Option   string `json:"option,omitempty"`
	Priority string `json:"priority,omitempty"`
	Again    bool   `json:"again,omitempty"`
}

type askIn struct {
	To             string   `json:"to,omitempty"`
	Title          string   `json:"title,omitempty"`
	Content        string   `json:"content,omitempty"`
	Options        []string `json:"options,omitempty"`
	TimeoutSeconds int      `json:"timeout_seconds,omitempty" jsonschema:"how long to wait for the answer (default 300)"`
	Forward        string   `json:"forward,omitempty"`
}

type logIn struct {
	About   string `json:"about,omitempty" jsonschema:"only messages from or to this agent"`
	Blocked bool   `json:"blocked,omitempty" jsonschema:"only messages the rules blocked"`
	Last    int    `json:"last,omitempty" jsonschema:"only the last N (default 50)"`
}

type logOut struct {
	Records []mailbox.Record `json:"records"`
}

type showIn struct {
	Select []string `json:"select" jsonschema:"seqs (5), ranges (5-8) or message ids"`
}

type showOut struct {
	Records []mailbox.Record `json:"records"`
	Notes   []string         `json:"notes,omitempty"`
	Refused []int64          `json:"refused,omitempty" jsonschema:"seqs you may not read: neither yours nor, for an oversight agent, anyone's"`
}

type spawnIn struct {
	Profile string            `json:"profile" jsonschema:"the profile to start from: one of agents/, or an agent of the rules"`
	Name    string            `json:"name,omitempty" jsonschema:"its name (default: the profile's with -1, -2, ...)"`
	Task    string            `json:"task,omitempty" jsonschema:"its first message: what to do; its answer comes to you"`
	Model   string            `json:"model,omitempty" jsonschema:"the model, over the profile's"`
	System  string            `json:"system,omitempty" jsonschema:"system instructions added to the profile's"`
	Env     map[string]string `json:"env,omitempty" jsonschema:"environment variables, over the profile's"`
}

type waitIn struct {
	Agent          string `json:"agent" jsonschema:"the helper you spawned"`
	TimeoutSeconds int    `json:"timeout_seconds,omitempty" jsonschema:"how long to wait (default 300)"`
}

type waitOut struct {
	Response *mailbox.Message `json:"response"`
}

type agentIn struct {
	Agent  string `json:"agent" jsonschema:"the agent"`
	Reason string `json:"reason,omitempty" jsonschema:"why (for cancel and interrupt): the agents stopped are told"`
}

type approvalsOut struct {
	Approvals []approvals.Approval `json:"approvals"`
}

type approvalSetIn struct {
	Agent    string `json:"agent" jsonschema:"the helper whose permission prompts it answers"`
	Decision string `json:"decision" jsonschema:"always or never"`
	Rule     string `json:"rule" jsonschema:"the calls it covers, like \"npm test *\" (a trailing * covers what follows)"`
	Tool     string `json:"tool,omitempty" jsonschema:"the tool the rule is about (default Bash, for a shell command of any client)"`
}

type approvalRevokeIn struct {
	ID string `json:"id" jsonschema:"the approval's id, or its first 4 characters or more"`
}

type agentsListOut struct {
	Agents []string `json:"agents"`
	Note   string   `json:"note,omitempty" jsonschema:"what else to know: a parent that was not told"`
}

type agentsOut struct {
	Agents []desk.Member `json:"agents"`
}

type statusIn struct{}

type lockIn struct {
	Resource string `json:"resource" jsonschema:"the name of what you take, like staging-db"`
	Reason   string `json:"reason,omitempty" jsonschema:"why, for the others to see"`
}

type unlockIn struct {
	Resource string `json:"resource" jsonschema:"the name of what you release"`
}

type doneOut struct {
	Done string `json:"done"`
}

type stateGetIn struct {
	Key string `json:"key" jsonschema:"the key"`
}

type stateSetIn struct {
	Key   string `json:"key" jsonschema:"the key"`
	Value any    `json:"value" jsonschema:"any JSON value"`
}

type stateOut struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

type stateListOut struct {
	State map[string]json.RawMessage `json:"state"`
}

type bulletinIn struct{}

type bulletinSetIn struct {
	Status        string `json:"status,omitempty" jsonschema:"the system status: normal, paused, degraded or blocked"`
	Phase         string `json:"phase,omitempty" jsonschema:"the current phase, any text"`
	Warn          string `json:"warn,omitempty" jsonschema:"a warning every agent sees"`
	ClearWarnings bool   `json:"clear_warnings,omitempty" jsonschema:"remove every warning"`
}

// addTools adds every tool to srv.
func (s *server) addTools(srv *mcp.Server) {
	send, reply, ask := desk.SendFields, desk.ReplyFields, desk.AskFields
	mcp.AddTool(srv, &mcp.Tool{Name: "send", Description: "Send a message to other agents of your team. The team's rules decide who may write to whom; a message they block is refused with the reason (the attempt is logged).",
		InputSchema: inputSchema[sendIn](send.To, send.Title, send.Content, send.Priority, send.Type, send.RequiresResponse)}, s.send)
	mcp.AddTool(srv, &mcp.Tool{Name: "inbox", Description: "List your unread messages (all with all: true), oldest first: id, time, priority, sender, title."}, s.inbox)
	mcp.AddTool(srv, &mcp.Tool{Name: "read", Description: "Read a message by id, or the next unread one (urgent first), and mark it read."}, s.read)
	mcp.AddTool(srv, &mcp.Tool{Name: "reply", Description: "Answer a message of your inbox: to its sender, as a response with its correlation id. A request that lists options is answered with option.",
		InputSchema: inputSchema[replyIn](reply.Content, reply.Option, reply.Priority, reply.Again)}, s.reply)
	mcp.AddTool(srv, &mcp.Tool{Name: "ask", Description: "Ask another agent (by default, for a spawned agent, its parent) and wait for the answer, up to timeout_seconds. With options, the answer is one of them; no answer in time, or one outside them, is deny: take it as a no. With forward, pass up a request of your inbox you cannot decide: it is answered with what comes back.",
		InputSchema: inputSchema[askIn](ask.To, ask.Title, ask.Content, ask.Options, ask.Forward)}, s.ask)
	mcp.AddTool(srv, &mcp.Tool{Name: "log", Description: "The audit log, one record per routed message: seq, time, sender, recipients, title, what routing did. Oversight agents see every message, others their own."}, s.log)
	mcp.AddTool(srv, &mcp.Tool{Name: "show", Description: "Logged messages in full, by seq, range of seqs or id. Oversight agents may read every message, others their own."}, s.show)
	mcp.AddTool(srv, &mcp.Tool{Name: "agents", Description: "The team: each agent's name, kind, state (idle, busy, waiting, exited; down when the team is not up), unread mail, and the parent of those spawned."}, s.agents)
	mcp.AddTool(srv, &mcp.Tool{Name: "spawn", Description: "Start a helper agent from a profile, in a new window of the running team, with a task; it answers to you: take its response with wait."}, s.spawn)
	mcp.AddTool(srv, &mcp.Tool{Name: "wait", Description: "Wait for the response of a helper you spawned, and mark it read; ends at once when the helper exits or is cancelled."}, s.wait)
	mcp.AddTool(srv, &mcp.Tool{Name: "close", Description: "Close a helper you spawned (and the helpers under it); its ancestors and the overseers may."}, s.close)
	mcp.AddTool(srv, &mcp.Tool{Name: "cancel", Description: "Cancel a helper you spawned and everything under it: each gets ESC and a [CANCELLED] notice with the reason."}, s.cancel)
	mcp.AddTool(srv, &mcp.Tool{Name: "interrupt", Description: "Stop an agent with ESC and tell it why, in reason. The interrupts list of the rules may interrupt anyone, and an agent the agents it spawned."}, s.interrupt)
	mcp.AddTool(srv, &mcp.Tool{Name: "approvals", Description: "The always and never answers given to helpers' permission prompts: for which agent, which calls, and who gave them."}, s.approvals)
	mcp.AddTool(srv, &mcp.Tool{Name: "approval_set", Description: "Answer a helper's permission prompts ahead, always or never, for the calls a rule covers. Its ancestors and the overseers may."}, s.approvalSet)
	mcp.AddTool(srv, &mcp.Tool{Name: "approval_revoke", Description: "Take an always or never back: the next matching prompt asks again. Its giver, the agent's ancestors and the overseers may."}, s.approvalRevoke)
	mcp.AddTool(srv, &mcp.Tool{Name: "status", Description: "Your unread counts and the team's bulletin: status, phase, warnings, locks, agents."}, s.status)
	mcp.AddTool(srv, &mcp.Tool{Name: "lock", Description: "Take a shared resource so that no one else works on it; refused, saying who holds it, when someone does."}, s.lock)
	mcp.AddTool(srv, &mcp.Tool{Name: "unlock", Description: "Release a shared resource you hold."}, s.unlock)
	mcp.AddTool(srv, &mcp.Tool{Name: "state_get", Description: "Read one key of the team's shared state."}, s.stateGet)
	mcp.AddTool(srv, &mcp.Tool{Name: "state_set", Description: "Set one key of the team's shared state to a JSON value."}, s.stateSet)
	mcp.AddTool(srv, &mcp.Tool{Name: "state_list", Description: "Every key of the team's shared state, with its value."}, s.stateList)
	mcp.AddTool(srv, &mcp.Tool{Name: "bulletin_set", Description: "Change the team's bulletin: its system status, its phase, a warning every agent sees, or clear the warnings. Oversight agents may."}, s.bulletinSet)
	mcp.AddTool(srv, &mcp.Tool{Name: "bulletin", Description: "The team's bulletin: system status, phase, warnings, locks and each agent's state."}, s.bulletin)
}

func (s *server) send(_ context.Context, _ *mcp.CallToolRequest, in sendIn) (*mcp.CallToolResult, sentOut, error) {
	d, err := s.open()
	if err != nil {
		return nil, sentOut{}, err
	}
	msg := &mailbox.Message{To: in.To, Title: in.Title, Content: in.Content, Priority: in.Priority, Type: in.Type, RequiresResponse: in.RequiresResponse}
	sent, err := d.Send(msg)
	return nil, sentOut{ID: sent.ID, Blocked: sent.Blocked, Queued: sent.Queued}, toolError(err)
}

func (s *server) inbox(_ context.Context, _ *mcp.CallToolRequest, in inboxIn) (*mcp.CallToolResult, inboxOut, error) {
	d, err := s.open()
	if err != nil {
		return nil, inboxOut{}, err
	}
	items, skipped, err := d.Inbox(in.All)
	return nil, inboxOut{Messages: items, NotMessages: skipped}, toolError(err)
}

func (s *server) read(_ context.Context, _ *mcp.CallToolRequest, in readIn) (*mcp.CallToolResult, readOut, error) {
	d, err := s.open()
	if err != nil {
		return nil, readOut{}, err
	}
	l, err := d.Read(in.ID, in.Peek)
	if err != nil {
		return nil, readOut{}, toolError(err)
	}
	return nil, readOut{Message: l.Message, Unverified: l.Unverified}, nil
}

func (s *server) reply(_ context.Context, _ *mcp.CallToolRequest, in replyIn) (*mcp.CallToolResult, sentOut, error) {
	d, err := s.open()
	if err != nil {
		return nil, sentOut{}, err
	}
	sent, err := d.Reply(desk.ReplyRequest{ID: in.ID, Content: in.Content, Option: in.Option, Priority: in.Priority, Again: in.Again})
	return nil, sentOut{ID: sent.ID, Blocked: sent.Blocked, Queued: sent.Queued}, toolError(err)
}

func (s *server) agents(ctx context.Context, _ *mcp.CallToolRequest, _ statusIn) (*mcp.CallToolResult, agentsOut, error) {
	d, err := s.open()
	if err != nil {
		return nil, agentsOut{}, err
	}
	members, err := d.Team(ctx)
	return nil, agentsOut{Agents: nonNil(members)}, toolError(err)
}

func (s *server) spawn(ctx context.Context, _ *mcp.CallToolRequest, in spawnIn) (*mcp.CallToolResult, desk.Spawned, error) {
	d, err := s.open()
	if err != nil {
		return nil, desk.Spawned{}, err
	}
	spawned, err := d.Spawn(ctx, desk.SpawnRequest{Profile: in.Profile, Name: in.Name, Task: in.Task, Model: in.Model, System: in.System, Env: in.Env})
	return nil, spawned, toolError(err)
}

func (s *server) wait(ctx context.Context, _ *mcp.CallToolRequest, in waitIn) (*mcp.CallToolResult, waitOut, error) {
	d, err := s.open()
	if err != nil {
		return nil, waitOut{}, err
	}
	timeout := defaultAskTimeout
	if in.TimeoutSeconds > 0 {
		timeout = time.Duration(in.TimeoutSeconds) * time.Second
	}
	msg, err := d.Wait(ctx, in.Agent, timeout, nil)
	return nil, waitOut{Response: msg}, toolError(err)
}

func (s *server) close(ctx context.Context, _ *mcp.CallToolRequest, in agentIn) (*mcp.CallToolResult, agentsListOut, error) {
	d, err := s.open()
	if err != nil {
		return nil, agentsListOut{}, err
	}
	// An agent's close never discards work: a tree that holds some stays.
	closed, err := d.Close(ctx, in.Agent, false)
	out := agentsListOut{Agents: nonNil(closed.Agents)}
	var notes []string
	var notTold *desk.ParentNotToldError
	if errors.As(err, &notTold) {
		notes, err = append(notes, err.Error()), nil // closed all the same
	}
	for _, fate := range closed.Trees {
		if fate.Kept != nil {
			notes = append(notes, "worktree kept: "+fate.Kept.Error())
		}
	}
	out.Note = strings.Join(notes, "; ")
	return nil, out, toolError(err)
}

func (s *server) cancel(_ context.Context, _ *mcp.CallToolRequest, in agentIn) (*mcp.CallToolResult, agentsListOut, error) {
	d, err := s.open()
	if err != nil {
		return nil, agentsListOut{}, err
	}
	cancelled, err := d.Cancel(in.Agent, in.Reason)
	return nil, agentsListOut{Agents: nonNil(cancelled)}, toolError(err)
}

func (s *server) interrupt(_ context.Context, _ *mcp.CallToolRequest, in agentIn) (*mcp.CallToolResult, sentOut, error) {
	d, err := s.open()
	if err != nil {
		return nil, sentOut{}, err
	}
	sent, err := d.Interrupt(in.Agent, in.Reason)
	return nil, sentOut{ID: sent.ID, Blocked: sent.Blocked, Queued: sent.Queued}, toolError(err)
}

func (s *server) approvals(_ context.Context, _ *mcp.CallToolRequest, _ statusIn) (*mcp.CallToolResult, approvalsOut, error) {
	d, err := s.open()
	if err != nil {
		return nil, approvalsOut{}, err
	}
	all, err := d.Approvals()
	return nil, approvalsOut{Approvals: nonNil(all)}, toolError(err)
}

func (s *server) approvalSet(_ context.Context, _ *mcp.CallToolRequest, in approvalSetIn) (*mcp.CallToolResult, approvals.Approval, error) {
	d, err := s.open()
	if err != nil {
		return nil, approvals.Approval{}, err
	}
	if in.Tool == "" {
		in.Tool = approvals.ShellTool
	}
	a, err := d.SetApproval(in.Agent, in.Decision, in.Tool, in.Rule)
	return nil, a, toolError(err)
}

func (s *server) approvalRevoke(_ context.Context, _ *mcp.CallToolRequest, in approvalRevokeIn) (*mcp.CallToolResult, approvals.Approval, error) {
	d, err := s.open()
	if err != nil {
		return nil, approvals.Approval{}, err
	}
	a, err := d.RevokeApproval(in.ID)
	return nil, a, toolError(err)
}

// defaultLogLast is how many records the log tool returns unless told.
const defaultLogLast = 50

func (s *server) log(_ context.Context, _ *mcp.CallToolRequest, in logIn) (*mcp.CallToolResult, logOut, error) {
	d, err := s.open()
	if err != nil {
		return nil, logOut{}, err
	}
	last := in.Last
	if last <= 0 {
		last = defaultLogLast
	}
	records, _, err := d.Log(desk.LogFilter{About: in.About, Blocked: in.Blocked, Last: last})
	if err != nil {
		return nil, logOut{}, toolError(err)
	}
	return nil, logOut{Records: nonNil(records)}, nil
}

func (s *server) show(_ context.Context, _ *mcp.CallToolRequest, in showIn) (*mcp.CallToolResult, showOut, error) {
	d, err := s.open()
	if err != nil {
		return nil, showOut{}, err
	}
	found, err := d.Show(in.Select)
	if err != nil {
		return nil, showOut{}, toolError(err)
	}
	if len(found.Refused) > 0 && len(found.Records) == 0 {
		return nil, showOut{}, fmt.Errorf("%s may not read message %v: only its sender, its recipients and oversight agents may", d.Agent(), found.Refused)
	}
	return nil, showOut{Records: nonNil(found.Records), Notes: found.Notes, Refused: found.Refused}, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// defaultAskTimeout is how long ask waits when the caller says nothing, as
// the command does.
const defaultAskTimeout = 300 * time.Second

func (s *server) ask(ctx context.Context, _ *mcp.CallToolRequest, in askIn) (*mcp.CallToolResult, desk.Answer, error) {
	d, err := s.open()
	if err != nil {
		return nil, desk.Answer{}, err
	}
	timeout := defaultAskTimeout
	if in.TimeoutSeconds > 0 {
		timeout = time.Duration(in.TimeoutSeconds) * time.Second
	}
	a, err := d.Ask(ctx, desk.AskRequest{To: in.To, Title: in.Title, Content: in.Content, Options: in.Options, Timeout: timeout, Forward: in.Forward}, nil)
	var refused *desk.RefusedAnswerError
	if a.Request != "" && (errors.Is(err, desk.ErrNoAnswer) || errors.As(err, &refused)) {
		return nil, a, nil // the safe answer, deny, is the answer
	}
	return nil, a, toolError(err)
}

func (s *server) status(_ context.Context, _ *mcp.CallToolRequest, _ statusIn) (*mcp.CallToolResult, *desk.Status, error) {
	d, err := s.open()
	if err != nil {
		return nil, nil, err
	}
	st, err := desk.ReadStatus(d.Workspace(), d.Agent())
	return nil, st, toolError(err)
}

func (s *server) lock(_ context.Context, _ *mcp.CallToolRequest, in lockIn) (*mcp.CallToolResult, doneOut, error) {
	d, err := s.open()
	if err != nil {
		return nil, doneOut{}, err
	}
	if err := d.Lock(in.Resource, in.Reason); err != nil {
		return nil, doneOut{}, toolError(err)
	}
	return nil, doneOut{Done: in.Resource + " locked by " + d.Agent()}, nil
}

func (s *server) unlock(_ context.Context, _ *mcp.CallToolRequest, in unlockIn) (*mcp.CallToolResult, doneOut, error) {
	d, err := s.open()
	if err != nil {
		return nil, doneOut{}, err
	}
	released, err := d.Unlock(in.Resource, false)
	if err != nil {
		return nil, doneOut{}, toolError(err)
	}
	return nil, doneOut{Done: fmt.Sprintf("%s unlocked (held by %s)", in.Resource, safetext.Line(released.Holder))}, nil
}

func (s *server) stateGet(_ context.Context, _ *mcp.CallToolRequest, in stateGetIn) (*mcp.CallToolResult, stateOut, error) {
	d, err := s.open()
	if err != nil {
		return nil, stateOut{}, err
	}
	v, err := d.State(in.Key)
	return nil, stateOut{Key: in.Key, Value: v}, toolError(err)
}

func (s *server) stateSet(_ context.Context, _ *mcp.CallToolRequest, in stateSetIn) (*mcp.CallToolResult, stateOut, error) {
	d, err := s.open()
	if err != nil {
		return nil, stateOut{}, err
	}
	value, err := json.Marshal(in.Value)
	if err != nil {
		return nil, stateOut{}, fmt.Errorf("the value is not JSON: %w", err)
	}
	return nil, stateOut{Key: in.Key, Value: value}, toolError(d.SetState(in.Key, value))
}

func (s *server) stateList(_ context.Context, _ *mcp.CallToolRequest, _ statusIn) (*mcp.CallToolResult, stateListOut, error) {
	d, err := s.open()
	if err != nil {
		return nil, stateListOut{}, err
	}
	state, err := d.StateList()
	return nil, stateListOut{State: state}, toolError(err)
}

func (s *server) bulletin(_ context.Context, _ *mcp.CallToolRequest, _ bulletinIn) (*mcp.CallToolResult, *bulletin.Bulletin, error) {
	d, err := s.open()
	if err != nil {
		return nil, nil, err
	}
	b, err := bulletin.Of(d.Workspace()).Read()
	return nil, b, toolError(err)
}

func (s *server) bulletinSet(_ context.Context, _ *mcp.CallToolRequest, in bulletinSetIn) (*mcp.CallToolResult, doneOut, error) {
	d, err := s.open()
	if err != nil {
		return nil, doneOut{}, err
	}
	if in == (bulletinSetIn{}) {
		return nil, doneOut{}, errors.New("say what to change: status, phase, warn or clear_warnings")
	}
	said, err := d.ChangeBulletin(desk.BulletinChange{Status: in.Status, Phase: in.Phase, Warn: in.Warn, ClearWarnings: in.ClearWarnings})
	return nil, doneOut{Done: said}, toolError(err)
}

// readInbox answers a read of the inbox resource: the unread list.
func (s *server) readInbox(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	d, err := s.open()
	if err != nil {
		return nil, err
	}
	items, _, err := d.Inbox(false)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(inboxOut{Messages: items})
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: InboxURI, MIMEType: "application/json", Text: string(data)}}}, nil
}

// toolError says a refusal in the tools' words: what happened, and what to
// send instead.
func toolError(err error) error {
	var answered *desk.AnsweredError
	var option *desk.OptionError
	var unknown *desk.UnknownAgentError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &answered):
		return fmt.Errorf("%w; call reply with again: true to send another answer", err)
	case errors.As(err, &option):
		return fmt.Errorf("%w; call reply with option set to one of them (content may add a note)", err)
	case errors.As(err, &unknown):
		return fmt.Errorf("%w; nothing was sent", err)
	case errors.Is(err, desk.ErrNoUnread):
		return errors.New("no unread messages")
	case errors.Is(err, desk.ErrNoSuchKey):
		return fmt.Errorf("%w; state_list lists the keys", err)
	case errors.Is(err, mailbox.ErrNotFound):
		return fmt.Errorf("%w; the inbox tool (with all: true) lists your messages", err)
	case errors.Is(err, approvals.ErrNotFound), errors.Is(err, approvals.ErrAmbiguous):
		return fmt.Errorf("%w; the approvals tool lists them", err)
	case errors.Is(err, desk.ErrNoReason):
		return fmt.Errorf("%w: give reason", err)
	case errors.Is(err, desk.ErrNoQuestion):
		return fmt.Errorf("%w: give title", err)
	}
	return err
}
