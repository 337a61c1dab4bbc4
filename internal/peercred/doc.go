// Package peercred reads the uid of the process at the other end of a unix
// socket connection, as the kernel recorded it when the connection was made
// (SO_PEERCRED on Linux, LOCAL_PEERCRED on macOS). The warm cache's server
// checks its clients with it, and its clients check the server: neither
// talks to a process of another user.
package peercred
