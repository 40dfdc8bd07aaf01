//! Integration tests of `mcp-transport-stdio`: the server side over real pipes and sockets,
//! the client side against real child processes, and the `echo` example run as a process.

mod child;
mod common;
mod example;
mod server;
