package txlog.replay

import txlog.Snapshot

/** How an updated snapshot builds on a cached one without caching its own files: `root`'s cached
  * files with `overlay` (the actions of every commit since `root`, reconciled on the driver) on
  * top.
  */
private[txlog] final case class CachedBase(root: Snapshot, overlay: FileOverlay)
