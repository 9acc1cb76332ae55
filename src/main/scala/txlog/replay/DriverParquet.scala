package txlog.replay

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.{FileStatus, FileSystem, Path}
import org.apache.parquet.HadoopReadOptions
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.metadata.BlockMetaData
import org.apache.parquet.hadoop.util.HadoopStreams
import org.apache.parquet.io.{ColumnIOFactory, InputFile, MessageColumnIO, SeekableInputStream}
import org.apache.parquet.io.api.RecordMaterializer
import org.apache.parquet.schema.{GroupType, LogicalTypeAnnotation, MessageType, Type}
import org.apache.spark.sql.Row
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructType}

import txlog.log.TablePath
import txlog.protocol.FileInfo

/** Reads a parquet file on the driver with parquet-mr (on every Spark's classpath), without
  * planning or running a Spark job: for the checkpoints of small tables, where a job's fixed cost
  * is most of the time a load takes.
  *
  * Only the columns `schema` names are read (the file's schema is clipped to them, by name, as
  * Spark's reader clips it); a field absent from the file is null. Rows stream through `each` one
  * at a time, so memory is one row group's pages of those columns, whatever the file's size. Shapes
  * outside what log files use (a column of another type than `schema` says, an unusual list
  * encoding) raise [[DriverParquet.Unsupported]], and so do decoding errors; callers fall back to
  * Spark's reader, which raises the error a user sees.
  */
private[txlog] object DriverParquet {

  /** The file has a shape this reader does not take on; Spark's reader should read it. */
  final class Unsupported(message: String) extends RuntimeException(message)

  /** Calls `each` with every row of `file` as a row of `schema` (values as `Row.get` gives them:
    * String, Long, Int, Boolean, Double, nested Row, scala Map and Seq); with `rowGroups`, only
    * with the rows of the row groups it chooses, given all of them from the footer (the others are
    * not read); with `narrow` (a narrower schema, and the row groups whose rows it covers), the
    * rows of those row groups as rows of that schema instead: the columns only `schema` names are
    * not read there.
    */
  def foreach(
      table: TablePath,
      file: String,
      schema: StructType,
      listed: Option[FileInfo] = None,
      rowGroups: Option[Seq[BlockMetaData] => BlockMetaData => Boolean] = None,
      narrow: Option[(StructType, BlockMetaData => Boolean)] = None
  )(each: Row => Unit): Unit = {
    val reader = open(table, new Path(file), listed)
    try {
      val fileSchema = reader.getFooter.getFileMetaData.getSchema
      clip(fileSchema, schema).foreach { requested =>
        val whole = Projection(fileSchema, requested, schema)
        val lean = narrow.flatMap { case (s, covers) =>
          clip(fileSchema, s).map(r => Projection(fileSchema, r, s) -> covers)
        }
        val blocks = reader.getRowGroups.asScala.toSeq
        val chosen = rowGroups.map(_(blocks))
        blocks.foreach { block =>
          if (!chosen.forall(_(block))) reader.skipNextRowGroup()
          else {
            val p = lean.collect { case (l, covers) if covers(block) => l }.getOrElse(whole)
            reader.setRequestedSchema(p.requested)
            val pages = reader.readNextRowGroup()
            val records = p.io.getRecordReader(pages, p.materializer)
            var i = 0L
            while (i < pages.getRowCount) {
              each(records.read())
              i += 1
            }
          }
        }
      }
    } finally reader.close()
  }

  /** The columns `requested` of a file of schema `file`, assembled as rows of `struct`. */
  private final case class Projection(
      file: MessageType,
      requested: MessageType,
      struct: StructType
  ) {
    val io: MessageColumnIO = new ColumnIOFactory().getColumnIO(requested, file)
    private val root = new ParquetRowConverters.Root(requested, struct)
    val materializer: RecordMaterializer[Row] = new RecordMaterializer[Row] {
      def getCurrentRecord: Row = root.current
      def getRootConverter = root
    }
  }

  /** A reader of `file` (a log file of `table`, or one at an absolute URI) through the table's file
    * system, with read options from its Hadoop conf. `ParquetFileReader.open(InputFile)` builds
    * them from a new Hadoop `Configuration` instead, which parses Hadoop's default XML resources on
    * every call (measured: about 40% of loading a small checkpointed table), and
    * `HadoopInputFile.fromPath` makes a file system per file from a copy of the conf that skips
    * local `.crc` files (measured: about 13% of it). With `listed` (the file as the log's listing
    * found it) its length is not looked up again (a HEAD on an object store). Pages are
    * uncompressed by [[DriverCodecs]].
    */
  def open(table: TablePath, file: Path, listed: Option[FileInfo] = None): ParquetFileReader = {
    val fs = if (table.sameFileSystem(file)) table.fs else file.getFileSystem(table.readConf)
    val status = listed.map(_.status).getOrElse(fs.getFileStatus(file))
    val options = HadoopReadOptions.builder(table.hadoopConf)
    ParquetFileReader.open(
      new FsInputFile(fs, status),
      options.withCodecFactory(new DriverCodecs(table.hadoopConf)).build()
    )
  }

  /** A parquet input file read through `fs`. */
  private final class FsInputFile(fs: FileSystem, status: FileStatus) extends InputFile {
    def getLength: Long = status.getLen
    def newStream(): SeekableInputStream = HadoopStreams.wrap(fs.open(status.getPath))
    override def toString: String = status.getPath.toString
  }

  /** `file` clipped to the fields of `schema` it has; None when it has none of them (its rows would
    * all be null).
    */
  private[replay] def clip(file: MessageType, schema: StructType): Option[MessageType] =
    clipFields(file, schema).map(fields => new MessageType(file.getName, fields.asJava))

  private def clipFields(group: GroupType, struct: StructType): Option[Seq[Type]] = {
    val fields = struct.fields.toSeq.flatMap { f =>
      field(group, f.name).flatMap(clipType(_, f.dataType))
    }
    if (fields.isEmpty) None else Some(fields)
  }

  private def clipType(t: Type, dataType: DataType): Option[Type] = dataType match {
    case s: StructType =>
      val g = group(t, s)
      if (g.getLogicalTypeAnnotation != null) unsupported(t, dataType)
      clipFields(g, s).map(fs => g.withNewFields(fs.asJava))
    case _: MapType | _: ArrayType                                       => Some(group(t, dataType))
    case _ if t.isPrimitive && !t.isRepetition(Type.Repetition.REPEATED) => Some(t)
    case _                                                               => unsupported(t, dataType)
  }

  /** The field named `name`: exactly, else ignoring case when only one field matches. */
  private def field(group: GroupType, name: String): Option[Type] =
    if (group.containsField(name)) Some(group.getType(name))
    else
      group.getFields.asScala.filter(_.getName.equalsIgnoreCase(name)).toSeq match {
        case Seq(only) => Some(only)
        case _         => None
      }

  private def group(t: Type, dataType: DataType): GroupType =
    if (t.isPrimitive || t.isRepetition(Type.Repetition.REPEATED)) unsupported(t, dataType)
    else t.asGroupType()

  private[replay] def unsupported(t: Type, dataType: DataType): Nothing =
    throw new Unsupported(s"column ${t.getName} ($t) read as ${dataType.simpleString}")

  private[replay] def isList(g: GroupType): Boolean =
    g.getLogicalTypeAnnotation.isInstanceOf[LogicalTypeAnnotation.ListLogicalTypeAnnotation]

  private[replay] def isMap(g: GroupType): Boolean = g.getLogicalTypeAnnotation match {
    case _: LogicalTypeAnnotation.MapLogicalTypeAnnotation  => true
    case _: LogicalTypeAnnotation.MapKeyValueTypeAnnotation => true
    case _                                                  => false
  }
}
