package dev.arenascope.core.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Fails the test when the peak bytes in use of any arena, pool or plan arena it recorded (or of the
 * memories {@link #memory()} names) exceed {@link #value()}. On a method or a class (every test of it;
 * a method's own annotation wins). Registers {@link ArenaScopeExtension}.
 *
 * <pre>{@code
 * @Test
 * @DeviceMemoryLimit("64 MiB")
 * void rendersAFrame() { ... }
 * }</pre>
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@ExtendWith(ArenaScopeExtension.class)
public @interface DeviceMemoryLimit {
    /** The limit: bytes, or a number with a unit ({@code "64 MiB"}, {@code "1.5 GB"}; kB, MB, GB powers of 1000, KiB, MiB, GiB of 1024). */
    String value();

    /** A memory's name, its name without the {@code " #N"} number, or a kind ({@code pool}, {@code arena}); empty: every memory. */
    String memory() default "";
}
