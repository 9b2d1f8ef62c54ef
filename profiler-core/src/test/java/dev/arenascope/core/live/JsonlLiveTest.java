package dev.arenascope.core.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.arenascope.core.trace.EventKind;
import dev.arenascope.core.trace.store.EventStore;
import dev.arenascope.testsupport.Await;

/** The text (JSON Lines) form of the live protocol, as the Python client speaks it, on the receiver's one port. */
@Timeout(60)
class JsonlLiveTest {
    private static final String HELLO = "{\"arenascope_live\":\"jsonl\",\"version\":1,\"pid\":4242,\"name\":\"prog.py\",\"token\":\"%s\"}\n";
    private static final String LINES = """
            {"type":"session","name":"prog.py","host":"h","start_epoch_ns":1,"devices":[],"attributes":{}}
            {"type":"memory","id":0,"name":"pool","kind":"POOL","device":"opencl","capacity":0,"attributes":{}}
            {"type":"string","id":0,"value":"pool"}
            {"t":1,"kind":"MEMORY_CREATED","mem":0,"ref":0}
            {"t":2,"kind":"RESERVE","mem":0,"a":4096,"b":1024,"aux":1024}
            {"t":2,"kind":"POOL_REQUEST","mem":0,"a":4096,"b":1024,"c":1000,"used":1024,"aux":1024,"ref":112}
            {"t":3,"kind":"POOL_HOLD","mem":0,"a":4096,"b":1024,"aux":1024,"ref":112}
            """;

    private final Map<Integer, EventStore> stores = new ConcurrentHashMap<>();

    private LiveReceiver start(String token) throws Exception {
        return LiveReceiver.start(new LiveReceiver.Options(InetAddress.getLoopbackAddress(), 0, token), peer -> {
            EventStore s = new EventStore(peer.session().name());
            stores.put(peer.connection(), s);
            return s;
        });
    }

    private static ConnectionStats ended(LiveReceiver r) {
        Await.until("the connection ended", () -> !r.stats().isEmpty() && r.stats().getLast().state().ended());
        return r.stats().getLast();
    }

    @Test
    void aGoodbyeIsAnsweredWithTheEventsDelivered() throws Exception {
        try (LiveReceiver r = start(null); Socket s = new Socket(InetAddress.getLoopbackAddress(), r.port())) {
            OutputStream out = s.getOutputStream();
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
            out.write(HELLO.formatted("").getBytes(StandardCharsets.UTF_8));
            assertEquals("{\"status\":0,\"message\":\"ok\"}", in.readLine());
            byte[] body = LINES.getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i < body.length; i += 7) {   // in pieces that cut lines anywhere
                out.write(body, i, Math.min(7, body.length - i));
                out.flush();
            }
            out.write("{\"type\":\"goodbye\",\"events\":4,\"lost\":0}\n".getBytes(StandardCharsets.UTF_8));
            out.flush();
            assertEquals("{\"status\":\"closed\",\"events\":4}", in.readLine());
            ConnectionStats c = ended(r);
            assertEquals(ConnectionStats.State.CLOSED, c.state());
            assertEquals(4, c.events());
            assertEquals(4242, c.peer().processId());
            EventStore store = stores.get(c.connection());
            assertEquals(4, store.eventCount());
            assertEquals(EventKind.POOL_REQUEST, store.event(2).kind());
            assertEquals(1024, store.peakAux(0));
            assertEquals("prog.py", store.session().name());
        }
    }

    @Test
    void aConnectionThatDiesMidLineKeepsEveryWholeLine() throws Exception {
        try (LiveReceiver r = start(null)) {
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), r.port())) {
                OutputStream out = s.getOutputStream();
                out.write(HELLO.formatted("").getBytes(StandardCharsets.UTF_8));
                new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8)).readLine();
                out.write((LINES + "{\"t\":4,\"kind\":\"POOL_REQ").getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
            ConnectionStats c = ended(r);
            assertEquals(ConnectionStats.State.CUT, c.state());
            assertTrue(c.detail().contains("partial line of 23 bytes dropped"), c.detail());
            assertEquals(4, stores.get(c.connection()).eventCount());
        }
    }

    @Test
    void aWrongTokenIsRefusedWithAnAnswerLine() throws Exception {
        try (LiveReceiver r = start("s3cret"); Socket s = new Socket(InetAddress.getLoopbackAddress(), r.port())) {
            s.getOutputStream().write(HELLO.formatted("nope").getBytes(StandardCharsets.UTF_8));
            String answer = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8)).readLine();
            assertEquals("{\"status\":1,\"message\":\"bad token\"}", answer);
            assertEquals(ConnectionStats.State.REJECTED, ended(r).state());
            assertTrue(stores.isEmpty());
        }
    }

    @Test
    void aBadHelloIsRefused() throws Exception {
        try (LiveReceiver r = start(null); Socket s = new Socket(InetAddress.getLoopbackAddress(), r.port())) {
            s.getOutputStream().write("{\"hello\":1}\n".getBytes(StandardCharsets.UTF_8));
            String answer = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8)).readLine();
            assertTrue(answer.startsWith("{\"status\":3,\"message\":\"bad hello: "), answer);
        }
    }

    /** One text session: hello, {@code body}, then {@code goodbye}; returns the receiver's last line. */
    private static String session(LiveReceiver r, String hello, byte[] body, String goodbye) throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), r.port())) {
            OutputStream out = s.getOutputStream();
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
            out.write(hello.getBytes(StandardCharsets.UTF_8));
            String answer = in.readLine();
            if (!answer.contains("\"status\":0")) {
                return answer;
            }
            out.write(body);
            out.write(goodbye.getBytes(StandardCharsets.UTF_8));
            out.flush();
            return in.readLine();
        }
    }

    @Test
    void aLineJacksonWouldTakeForUtf32IsOneBadLineNotALostSession() throws Exception {
        try (LiveReceiver r = start(null)) {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            body.write(new byte[] {'{', 0, 0, 0, '\n'});
            body.write(LINES.getBytes(StandardCharsets.UTF_8));
            body.write(new byte[] {'{', 0, 0, 0, '\n'});
            String last = session(r, HELLO.formatted(""), body.toByteArray(), "{\"type\":\"goodbye\",\"events\":4,\"lost\":0}\n");
            assertEquals("{\"status\":\"closed\",\"events\":4}", last);
            ConnectionStats c = ended(r);
            assertEquals(ConnectionStats.State.CLOSED, c.state(), c.detail());
            assertEquals(4, stores.get(c.connection()).eventCount());
        }
    }

    @Test
    void aGoodbyeWrittenWithSpacesIsAGoodbye() throws Exception {
        try (LiveReceiver r = start(null)) {
            String last = session(r, HELLO.formatted(""), LINES.getBytes(StandardCharsets.UTF_8),
                    "{ \"type\" : \"goodbye\", \"events\": 4, \"lost\": 0 }\n");
            assertEquals("{\"status\":\"closed\",\"events\":4}", last);
            assertEquals(ConnectionStats.State.CLOSED, ended(r).state());
        }
    }

    @Test
    void aHelloPidThatIsNoProcessIdIsRefused() throws Exception {
        try (LiveReceiver r = start(null)) {
            String answer = session(r, "{\"arenascope_live\":\"jsonl\",\"version\":1,\"pid\":100000000000000000000000,\"name\":\"p\"}\n",
                    new byte[0], "");
            assertTrue(answer.contains("\"status\":3") && answer.contains("is not a process id"), answer);
        }
    }
}
