package txlog.storage

import java.io.IOException

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.{FileStatus, FileSystem, Path}

/** Lists the files directly under a directory of S3A whose names sort after a given name, with
  * ListObjectsV2's `StartAfter` (S3A's own listing has no such call: it pages from the first key of
  * the prefix). A `_delta_log` of millions of objects then costs a reader only the pages after the
  * checkpoint it starts from. The requests go through S3A's own AWS SDK client ([[S3AClients]]);
  * the page size is S3A's `fs.s3a.paging.maximum`.
  *
  * A store that ignores `StartAfter` returns earlier names too: callers filter by name anyway.
  */
private[txlog] trait S3ListAfter {

  /** Calls `f` with each file directly under `dir` (not in its subdirectories) whose name sorts
    * after `after`, in name order. A failure of the store is an IOException.
    */
  def foreachAfter(dir: Path, after: String)(f: FileStatus => Unit): Unit
}

private[txlog] object S3ListAfter {

  /** S3A's listing API version; 1 means the store has no ListObjectsV2 (no `StartAfter`). */
  private val ListVersionKey = "fs.s3a.list.version"
  private val PagingKey = "fs.s3a.paging.maximum"

  /** The lister of `fs` when it is S3A on an AWS SDK txlog can reach and the store lists with
    * ListObjectsV2; None otherwise (S3A's own listing is used then).
    */
  def of(fs: FileSystem): Option[S3ListAfter] =
    if (!S3PutClient.isS3A(fs.getClass) || fs.getConf.getInt(ListVersionKey, 2) == 1) None
    else S3AClients.v2(fs).map(V2.of(fs, _)).orElse(S3AClients.v1(fs).map(V1.of(fs, _)))

  private def pageSize(fs: FileSystem): Int = fs.getConf.getInt(PagingKey, 5000).max(1).min(1000)

  /** One page of a listing: (key, size, modification time) of its objects, and the continuation
    * token of the next page, if any.
    */
  private type Page = (Iterator[(String, Long, Long)], Option[String])

  /** A lister whose pages `page` asks for (given the directory's key prefix, the first key to list
    * after, and the previous page's token); a failure `isStoreError` recognises is an IOException.
    */
  def lister(fs: FileSystem, access: S3AClients.Common, isStoreError: Throwable => Boolean)(
      page: (String, String, Option[String]) => Page
  ): S3ListAfter = new S3ListAfter {
    def foreachAfter(dir: Path, after: String)(f: FileStatus => Unit): Unit = {
      val key = access.key(fs, dir)
      val prefix = if (key.endsWith("/")) key else key + "/"
      val blockSize = fs.getDefaultBlockSize(dir)
      try
        access.inSpan(fs, "txlog_list_after", prefix) {
          var token = Option.empty[String]
          var first = true
          while (first || token.isDefined) {
            first = false
            val (objects, next) = page(prefix, prefix + after, token)
            objects.foreach { case (k, size, mtime) =>
              // Only the directory's own files (a key outside the prefix is not one of them).
              val name = if (k.startsWith(prefix)) k.substring(prefix.length) else ""
              if (name.nonEmpty && !name.contains('/')) {
                f(new FileStatus(size, false, 1, blockSize, mtime, new Path(dir, name)))
              }
            }
            token = next
          }
        }
      catch {
        case e if isStoreError(e) =>
          throw new IOException(s"listing s3a://${access.bucket(fs)}/$prefix: $e", e)
      }
    }
  }

  // Each SDK's code in an object of its own, loaded only where that SDK is (see S3Get).
  private object V2 {
    def of(fs: FileSystem, access: S3AClients.V2): S3ListAfter = {
      import software.amazon.awssdk.core.exception.SdkException
      lister(fs, access, _.isInstanceOf[SdkException]) { (prefix, startAfter, token) =>
        val request = access.list(fs, prefix, pageSize(fs)).startAfter(startAfter)
        val page =
          access.client(fs).listObjectsV2(token.fold(request)(request.continuationToken).build())
        val objects = page.contents.asScala.iterator
          .map(o => (o.key, o.size.toLong, o.lastModified.toEpochMilli))
        (objects, Option(page.nextContinuationToken).filter(_ => page.isTruncated))
      }
    }

  }

  private object V1 {
    def of(fs: FileSystem, access: S3AClients.V1): S3ListAfter = {
      import com.amazonaws.AmazonClientException
      lister(fs, access, _.isInstanceOf[AmazonClientException]) { (prefix, startAfter, token) =>
        val request = access.list(fs, prefix, pageSize(fs)).withStartAfter(startAfter)
        token.foreach(request.setContinuationToken)
        val page = access.client(fs).listObjectsV2(request)
        val objects = page.getObjectSummaries.asScala.iterator
          .map(o => (o.getKey, o.getSize, o.getLastModified.getTime))
        (objects, Option(page.getNextContinuationToken).filter(_ => page.isTruncated))
      }
    }
  }
}
