/*
 * Prints golden vectors for src/base/hash.c, computed by the real Java definitions:
 *   murmur_hudi    org.apache.hudi.common.util.hash.MurmurHash   (hudi-common; Hudi's bloom filter)
 *   murmur_hadoop  org.apache.hadoop.util.hash.MurmurHash        (hadoop-common)
 *   jhash          java.lang.String.hashCode of new String(utf8, UTF_8)
 *   shard          org.apache.hudi.metadata.HoodieTableMetadataUtil.mapRecordKeyToFileGroupIndex
 *   crc32          java.util.zip.CRC32
 *   checksum       org.apache.hudi.common.table.HoodieTableConfig.generateChecksum
 *   xxh64          net.jpountz.xxhash XXHash64 (lz4-java, pure-Java "safe" instance)
 *
 * Output (tests/golden/hash_vectors.txt), one vector per line, fields separated by one space;
 * byte strings are lower-case hex, "-" for the empty string; integers are decimal:
 *   murmur_hudi <seed> <hex> <int32>
 *   murmur_hadoop <seed> <hex> <int32>
 *   jhash <hex utf8> <int32>
 *   shard <hex utf8> <numFileGroups> <index>
 *   crc32 <hex> <uint32>
 *   checksum <hex db or "none"> <hex table> <uint32>
 *   xxh64 <seed> <hex> <uint64>
 * Regenerate with tests/golden/regen.sh. Inputs are deterministic (fixed Random seeds).
 */
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.zip.CRC32;

public final class GoldenHashes {
  private static final StringBuilder OUT = new StringBuilder();

  private static String hex(byte[] b) {
    if (b.length == 0) return "-";
    StringBuilder sb = new StringBuilder(b.length * 2);
    for (byte x : b) sb.append(String.format("%02x", x & 0xff));
    return sb.toString();
  }

  private static void line(Object... parts) {
    for (int i = 0; i < parts.length; i++) {
      if (i > 0) OUT.append(' ');
      OUT.append(parts[i]);
    }
    OUT.append('\n');
  }

  private static byte[] utf8(String s) { return s.getBytes(StandardCharsets.UTF_8); }

  /** Byte strings for the murmur, crc and xxh64 vectors. */
  private static List<byte[]> byteInputs() {
    List<byte[]> in = new ArrayList<>();
    Random r = new Random(20240102L);
    // Every length 0..17 (every tail size, several whole words), random bytes of all values.
    for (int len = 0; len <= 17; len++) {
      for (int k = 0; k < 3; k++) {
        byte[] b = new byte[len];
        r.nextBytes(b);
        in.add(b);
      }
    }
    // Every byte value as a 1-, 2- and 3-byte tail after one whole word, and alone.
    for (int v = 0; v < 256; v++) {
      in.add(new byte[] {(byte) v});
      in.add(new byte[] {'a', 'b', 'c', 'd', (byte) v});
      in.add(new byte[] {'a', 'b', 'c', 'd', (byte) v, (byte) (255 - v)});
      in.add(new byte[] {'a', 'b', 'c', 'd', 0x7f, (byte) v, (byte) (v ^ 0x80)});
    }
    // High bytes inside whole words too.
    in.add(new byte[] {(byte) 0x80, (byte) 0xff, (byte) 0xfe, (byte) 0x81});
    in.add(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff,
                       (byte) 0xff, (byte) 0xff, (byte) 0xff});
    // Typical record keys and some longer inputs.
    for (String s : new String[] {"TXN-001", "TXN-008", "uuid-334e26e9-8355-45cc-97c6-c31daf0df330",
                                  "id:1,name:Alice", "héllo wörld", "日本語のキー", "😀 emoji key"}) {
      in.add(utf8(s));
    }
    for (int len : new int[] {31, 32, 33, 63, 64, 100, 255, 1000, 1031}) {
      byte[] b = new byte[len];
      r.nextBytes(b);
      in.add(b);
    }
    return in;
  }

  private static int[] seeds() {
    return new int[] {0, 1, -1, 42, 0x9747b28c, Integer.MIN_VALUE, Integer.MAX_VALUE, 0x5bd1e995};
  }

  private static void murmur() {
    org.apache.hudi.common.util.hash.MurmurHash hudi =
        (org.apache.hudi.common.util.hash.MurmurHash) org.apache.hudi.common.util.hash.MurmurHash.getInstance();
    org.apache.hadoop.util.hash.MurmurHash hadoop =
        (org.apache.hadoop.util.hash.MurmurHash) org.apache.hadoop.util.hash.MurmurHash.getInstance();
    List<byte[]> in = byteInputs();
    int[] seeds = seeds();
    for (int i = 0; i < in.size(); i++) {
      byte[] b = in.get(i);
      // Every input with seed 0 and -1; a rotating third seed keeps the file small.
      int[] use = {0, -1, seeds[i % seeds.length]};
      for (int s : use) line("murmur_hudi", s, hex(b), hudi.hash(b, 0, b.length, s));
      // Hadoop's copy must agree with Hudi's; one seed per input is enough to show it.
      int hs = use[i % 3];
      line("murmur_hadoop", hs, hex(b), hadoop.hash(b, 0, b.length, hs));
    }
    // The bloom filter's chained use: h = hash(key, h) with the previous result as the seed.
    for (String key : new String[] {"TXN-001", "key-\u00ff", "é"}) {
      byte[] b = utf8(key);
      int h = 0;
      for (int k = 0; k < 8; k++) {
        int next = hudi.hash(b, 0, b.length, h);
        line("murmur_hudi", h, hex(b), next);
        h = next;
      }
    }
  }

  /** Strings for hashCode and the shard mapping: ASCII, multi-byte UTF-8, supplementary chars. */
  private static List<String> stringInputs() {
    List<String> in = new ArrayList<>();
    String[] fixed = {"", "a", "A", "ab", "TXN-001", "TXN-008", "TXN-018", "polygenelubricants",
                      "GydZG_", "DESIGNING WORKHOUSES", "hudi-key-000000001", "é", "ÿ", "\u0100",
                      "\u07ff", "\u0800", "日本語", "\uffff", "\ufffd", "😀", "𐍈", "\udbff\udfff",
                      "a😀b", "😀😀😀", "key/with spaces and = signs", "0", "-1", "2024-01-02"};
    for (String s : fixed) in.add(s);
    Random r = new Random(77L);
    for (int k = 0; k < 150; k++) {
      int len = r.nextInt(24);
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < len; i++) {
        int kind = r.nextInt(5);
        int cp;
        if (kind == 0) cp = 0x20 + r.nextInt(0x5f);         // ASCII
        else if (kind == 1) cp = 0x80 + r.nextInt(0x780);   // 2-byte UTF-8
        else if (kind == 2) {                               // 3-byte, no surrogates
          do { cp = 0x800 + r.nextInt(0x10000 - 0x800); } while (cp >= 0xd800 && cp <= 0xdfff);
        } else if (kind == 3) cp = 0x10000 + r.nextInt(0x100000); // 4-byte: surrogate pair
        else cp = 'a' + r.nextInt(26);
        sb.appendCodePoint(cp);
      }
      in.add(sb.toString());
    }
    for (int k = 0; k < 40; k++) {
      StringBuilder sb = new StringBuilder();
      int len = 30 + r.nextInt(200);
      for (int i = 0; i < len; i++) sb.append((char) ('0' + r.nextInt(75)));
      in.add(sb.toString());
    }
    return in;
  }

  private static void javaHash() throws Exception {
    Method map = Class.forName("org.apache.hudi.metadata.HoodieTableMetadataUtil")
        .getMethod("mapRecordKeyToFileGroupIndex", String.class, int.class);
    int[] ns = {1, 2, 3, 7, 10, 16, 100, 1000, 65535, Integer.MAX_VALUE};
    List<String> in = stringInputs();
    for (int i = 0; i < in.size(); i++) {
      String s = in.get(i);
      byte[] b = utf8(s);
      // Only strings that survive a UTF-8 round trip (no lone surrogates) are meaningful here.
      if (!new String(b, StandardCharsets.UTF_8).equals(s)) throw new IllegalStateException(s);
      line("jhash", hex(b), s.hashCode());
      for (int k = 0; k < 3; k++) {
        int n = ns[(i + k * 4) % ns.length];
        line("shard", hex(b), n, map.invoke(null, s, n));
      }
    }
  }

  private static void crc() throws Exception {
    for (byte[] b : byteInputs()) {
      CRC32 c = new CRC32();
      c.update(b, 0, b.length);
      line("crc32", hex(b), c.getValue());
    }
    Method gen = Class.forName("org.apache.hudi.common.table.HoodieTableConfig")
        .getMethod("generateChecksum", Properties.class);
    String[][] tables = {{"default", "v8_trips_8i3u1d"}, {"default", "trips"}, {"db", "trips"},
                         {null, "trips"}, {"", "trips"}, {"default", "v6_empty"},
                         {null, "a"}, {"analytics", "orders_2024"}, {"dé", "tâble"}};
    for (String[] t : tables) {
      Properties p = new Properties();
      if (t[0] != null) p.setProperty("hoodie.database.name", t[0]);
      p.setProperty("hoodie.table.name", t[1]);
      line("checksum", t[0] == null ? "none" : hex(utf8(t[0])), hex(utf8(t[1])), gen.invoke(null, p));
    }
  }

  private static void xxh64() {
    net.jpountz.xxhash.XXHash64 x = net.jpountz.xxhash.XXHashFactory.safeInstance().hash64();
    long[] seeds = {0L, 1L, -1L, 0x9e3779b185ebca87L, 0xdabadabaL};
    List<byte[]> in = byteInputs();
    for (int i = 0; i < in.size(); i++) {
      byte[] b = in.get(i);
      long s = seeds[i % seeds.length];
      line("xxh64", Long.toUnsignedString(s), hex(b), Long.toUnsignedString(x.hash(b, 0, b.length, s)));
    }
  }

  public static void main(String[] args) throws Exception {
    murmur();
    javaHash();
    crc();
    xxh64();
    System.out.print(OUT);
  }
}
