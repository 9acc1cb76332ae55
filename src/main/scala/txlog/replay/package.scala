package txlog

/** Log replay: from a [[txlog.log.LogSegment]] to a [[txlog.Snapshot]].
  *
  * Glossary of the data shapes replay passes around; names in this package follow it.
  *
  *   - '''segment''' ([[txlog.log.LogSegment]]): the files that make up one version, a checkpoint
  *     and the '''deltas''' after it (commits and log compaction files).
  *   - '''checkpoint base''' (`FileState.checkpointBase`): the checkpoint's file actions keyed by
  *     (pathKey, dvId). Already reconciled, so it is never shuffled.
  *   - '''tail''' ([[Tail]]): the parsed actions of the deltas. A [[DriverTail]] is small enough to
  *     read and parse on the driver (rows, no job); a [[DistributedTail]] is read and parsed by
  *     tasks (a DataFrame).
  *   - '''tail files''' ([[TailFiles]]): the tail's file actions, reconciled on the driver
  *     ([[DriverTailFiles]], holding a [[FileOverlay]]) or left to a window function in tasks
  *     ([[DistributedTailFiles]]).
  *   - '''overlay''' ([[FileOverlay]]): file actions held on the driver, reduced to the newest
  *     action per key ([[OverlayAction]]), to be laid over a distributed base. It grows with the
  *     commits it covers, never with the table.
  *   - '''cached base''' ([[CachedBase]]): a cached snapshot plus the overlay of every commit since
  *     it; what `DeltaLog.update()` builds on instead of caching again.
  *   - '''file state''' ([[FileState]]): the reconciled files, one row per (pathKey, dvId) with
  *     exactly one of add and remove, in two shapes: '''full''' (every field) and '''lean''' (only
  *     what counting needs: paths, sizes, DV ids, deletion times).
  *   - '''counts''' ([[FileCounts]]): live files, their bytes, unexpired tombstones.
  *   - '''non-file state''' ([[NonFileState]]): protocol, metadata, txns, domain metadata, sidecar
  *     names and the in-commit timestamp, always on the driver.
  */
package object replay
