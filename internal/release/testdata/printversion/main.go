// Command printversion prints the line --version prints, for the test of
// the linker flags the package's documentation gives.
package main

import (
	"fmt"

	"switchboard/internal/release"
)

func main() { fmt.Println(release.Line("switchboard")) }
