package txlog.replay

import java.net.URI

import scala.util.control.NonFatal

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.catalyst.expressions.Literal
import org.apache.spark.sql.catalyst.expressions.objects.StaticInvoke
import org.apache.spark.sql.types.StringType
import org.apache.spark.unsafe.types.UTF8String
import org.apache.spark.sql.functions._

import org.apache.spark.sql.txlog.SparkExpressions

/** The primary key of a logical file ("Action Reconciliation"): (path, deletionVector.uniqueId).
  *
  * Paths are RFC 2396 URIs, relative to the table root or absolute, and may be escaped, so one file
  * can be spelled several ways; they are compared in canonical form: the qualified, unescaped
  * Hadoop path. Plain relative paths (the common case) are canonicalized by a native expression;
  * only the others go through a function call.
  */
private[txlog] object FileKeys {
  val PathKey = "pathKey"
  val DvKey = "dvId"

  /** The canonical form of `path` as a Hadoop path string, for a table at `root`. */
  def canonicalize(root: String, path: String): String = canonicalPath(root, path).toString

  /** [[canonicalize]] as a Hadoop path. */
  def canonicalPath(root: String, path: String): Path = {
    val p =
      try new Path(new URI(path))
      catch { case NonFatal(_) => new Path(path) }
    val rootPath = new Path(root)
    if (!p.isAbsolute) new Path(rootPath, p)
    else if (p.toUri.getScheme == null) {
      val r = rootPath.toUri
      new Path(r.getScheme, r.getAuthority, p.toUri.getPath)
    } else p
  }

  /** Whether `path` is a plain relative path: its own key, with no decoding needed. */
  private[replay] def isPlain(p: String): Boolean =
    !p.contains(":") && !p.contains("%") && !p.startsWith("/") && !p.startsWith(".") &&
      !p.contains("/.") && !p.contains("//")

  /** The key of a path: its canonical form, written relative to the root when it lies under it.
    * Plain relative paths (nearly all of them) are their own key, so computing keys costs a few
    * string tests per action and no allocation; no absolute key can equal a relative one, as
    * absolute keys carry a scheme (`file:`, `s3a:`) and plain paths have no colon.
    */
  def pathKeyValue(root: String, path: String): String =
    if (isPlain(path)) path
    else {
      val c = canonicalize(root, path)
      val prefix = new Path(root).toString + "/"
      if (c.startsWith(prefix)) c.substring(prefix.length) else c
    }

  /** The key [[dvId]] computes (with "" for no deletion vector), for one action's DV. */
  def dvIdValue(dv: org.apache.spark.sql.Row): String =
    if (dv == null) ""
    else {
      val offset = dv.getAs[Any]("offset")
      dv.getAs[String]("storageType") + dv.getAs[String]("pathOrInlineDv") +
        (if (offset == null) "" else "@" + offset)
    }

  /** Column expression of [[pathKeyValue]]: generated code calls [[PathKeyFunctions.pathKey]] on
    * each row's bytes.
    */
  def pathKey(path: Column, root: String): Column = SparkExpressions.column(
    StaticInvoke(
      Class.forName(PathKeyFunctions.getClass.getName.stripSuffix("$")),
      StringType,
      "pathKey",
      Seq(Literal(UTF8String.fromString(root), StringType), SparkExpressions.expression(path))
    )
  )

  /** The deletion vector's uniqueId ("Deletion Vector Descriptor Schema", derived fields):
    * storageType ++ pathOrInlineDv, plus "@" ++ offset when an offset is present; null without a
    * deletion vector.
    */
  def dvId(dv: Column): Column =
    when(dv.isNull, lit(null).cast("string")).otherwise(
      concat(
        dv("storageType"),
        dv("pathOrInlineDv"),
        when(dv("offset").isNull, lit("")).otherwise(concat(lit("@"), dv("offset").cast("string")))
      )
    )

  /** `files` (columns `path` and, optionally, `deletionVector`: a snapshot's files, staged removes)
    * with `path` and its file key as `_k_path` and `_k_dv` ("" without a deletion vector).
    */
  def keyedFiles(files: DataFrame, root: String): DataFrame = {
    val dv =
      if (files.columns.contains("deletionVector")) dvId(col("deletionVector"))
      else lit(null).cast("string")
    files.select(
      col("path"),
      pathKey(col("path"), root).as("_k_path"),
      coalesce(dv, lit("")).as("_k_dv")
    )
  }
}
