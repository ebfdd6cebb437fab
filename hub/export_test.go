package hub

// What the tests outside the package (package hub_test, which may import
// the programs that import this one) take of the tests inside it.
var (
	WaitFor  = waitFor
	CtxFor   = ctxFor
	FreePort = freePort
)

// APIPrefix is where a host of the team "main" reaches JetStream's API, in
// its own account: where hostile code on a host sends its requests.
var APIPrefix = names{"main"}.api()
