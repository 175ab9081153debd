/// A client library for the gestured socket.
