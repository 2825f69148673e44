// Package replication makes Cairn a replica of a Redis master: the link's
// state machine, the PSYNC handshake, the transfer of the master's RDB
// (disk-backed "$<len>" or diskless "$EOF:<mark>"), and the command stream
// that follows, with its replication offset counted in bytes and
// acknowledged (REPLCONF ACK).
//
// The package knows the wire and nothing of the server: it reaches the
// dataset only through Host (replace the dataset with an RDB, apply one
// command as the master client, make the applied commands visible), so it
// never imports internal/server.
//
// What it must never do:
//   - touch the dataset before an RDB has arrived whole and checked: the
//     file is received into a temporary file in the data directory and
//     read once to verify its structure and checksum before Host.LoadRDB
//     flushes anything, so a master that disconnects or sends garbage
//     mid-transfer leaves the previous data intact;
//   - count a command inside MULTI as processed: as in Redis, the
//     processed offset moves only outside a transaction, so a link broken
//     between MULTI and EXEC resumes (+CONTINUE) at the MULTI, and the
//     half-received transaction is discarded (Host.ResetClient);
//   - block forever: every read has the replication timeout as deadline,
//     and a broken link is retried with a growing pause.
//
// Caveats: the master's replication ID and offset are kept in memory only,
// so a restarted Cairn does a full resync.
package replication
