package master

import (
	"fmt"

	"switchboard/conversation"
	"switchboard/master/panes"
)

// limited tells the overseers, once an episode, that an agent's client hit
// its usage or rate limit or lost its login: its notices wait.
func (m *Master) limited(agent string, st conversation.State) {
	content := fmt.Sprintf("The client of %s says: %s.\n\nIt is not restarted, and its notices wait; switchboard lets one through every %s, which has the client try again, and the agent is idle again once a turn works. A login lost is yours to give back in its pane (switchboard attach).\n", agent, st.Detail, panes.LimitRetry)
	key, title := fmt.Sprintf("limited/%s/%d", agent, st.Since.UnixNano()), fmt.Sprintf("LIMITED: %s: %s", agent, st.Detail)
	m.tellOverseers(key, title, content, st.Since)
	m.notifyPerson(key, title, content)
}
