package txlog.vacuum

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.Row
import org.apache.spark.sql.functions.{coalesce, col, lit}

import txlog.Snapshot

/** What VACUUM must keep, as relative paths (with every directory they lie in): the files of the
  * snapshot's add actions and of its tombstones not older than `deleteBefore`, and the
  * deletion-vector files both reference. Computed by tasks from the snapshot's lean file state; no
  * path reaches the driver.
  *
  * Deletion vectors stored by UUID (`u`) resolve below the root; one stored by absolute path (`p`)
  * is kept when it lies inside the table (delta-spark ignores those, which could delete a DV file a
  * live file needs). Actions naming paths outside the root are counted in `skipped`; those naming
  * paths on a store the root's cannot be related to (another scheme or authority: perhaps a file
  * below the root under another name) in `unrelated`, which VACUUM refuses to go on with unless
  * told to.
  */
private[txlog] object ValidFiles {

  def of(
      snapshot: Snapshot,
      root: TableRoot,
      deleteBefore: Long,
      skipped: SkippedPaths,
      unrelated: SkippedPaths
  ): RDD[String] = {
    val files = if (snapshot.isCached) snapshot.reconciledFiles else snapshot.leanFiles
    val deletedAt = coalesce(col("remove.deletionTimestamp"), lit(0L))
    // Tombstones the snapshot still holds (not expired when it was built), and not older than
    // the vacuum's own cutoff: delta-spark's two filters.
    val kept = files.where(
      col("add").isNotNull ||
        (col("remove").isNotNull && deletedAt > lit(snapshot.tombstoneCutoff) &&
          deletedAt >= lit(deleteBefore))
    )
    val rows = kept.select(
      coalesce(col("add.path"), col("remove.path")).as("path"),
      coalesce(
        col("add.deletionVector.storageType"),
        col("remove.deletionVector.storageType")
      ).as("storageType"),
      coalesce(
        col("add.deletionVector.pathOrInlineDv"),
        col("remove.deletionVector.pathOrInlineDv")
      ).as("pathOrInlineDv")
    )
    rows.rdd
      .mapPartitions(_.flatMap { r =>
        paths(root, r.getString(0), r.getString(1), r.getString(2), skipped, unrelated)
      })
      .setName(s"txlog: files to keep in ${root.root}")
  }

  /** The same paths from lean file actions read on the driver ([[txlog.replay.DriverFileActions]]):
    * those of `add` (when not null), or of `remove` when its tombstone is kept, by the rule of
    * [[of]].
    */
  def ofLean(
      add: Row,
      remove: Row,
      tombstoneCutoff: Long,
      root: TableRoot,
      deleteBefore: Long,
      skipped: SkippedPaths,
      unrelated: SkippedPaths
  ): Iterator[String] = {
    def dv(a: Row) = Option(a.getAs[Row](2)).fold[(String, String)]((null, null)) { d =>
      (d.getString(0), d.getString(1))
    }
    if (add != null) {
      val (kind, value) = dv(add)
      paths(root, add.getString(0), kind, value, skipped, unrelated)
    } else {
      val deletedAt = if (remove.isNullAt(1)) 0L else remove.getLong(1)
      if (deletedAt <= tombstoneCutoff || deletedAt < deleteBefore) Iterator.empty
      else {
        val (kind, value) = dv(remove)
        paths(root, remove.getString(0), kind, value, skipped, unrelated)
      }
    }
  }

  private def paths(
      root: TableRoot,
      path: String,
      storageType: String,
      pathOrInlineDv: String,
      skipped: SkippedPaths,
      unrelated: SkippedPaths
  ): Iterator[String] = {
    def kept(p: TableRoot.Placed): Iterator[String] = p match {
      case TableRoot.Inside(rel)    => Iterator.single(rel)
      case TableRoot.Outside(why)   => skipped.add(why); Iterator.empty
      case TableRoot.Unrelated(why) => unrelated.add(why); Iterator.empty
    }
    val data = kept(root.place(path)).flatMap(p => TableRoot.parents(p) ++ Iterator(p))
    val dv =
      if (storageType == null) Iterator.empty
      else root.placeDeletionVector(storageType, pathOrInlineDv).iterator.flatMap(kept)
    data ++ dv
  }
}
