package dev.arenascope.core.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Fails the test when more than {@link #value()} bytes it allocated in its measured run are still in use
 * when the run ends: the bytes in use at the end beyond those in use where the run began, summed over
 * the memories. {@link #warmups()} runs of the test method come first (caches they fill are not leaks);
 * the run after them is measured. Registers {@link ArenaScopeExtension}.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@ExtendWith(ArenaScopeExtension.class)
public @interface DeviceLeakLimit {
    /** The most bytes that may stay in use ({@code "1 MiB"}, {@code "0"}). */
    String value();

    /** Runs of the test method before the measured one. */
    int warmups() default 0;

    /** As {@link DeviceMemoryLimit#memory()}. */
    String memory() default "";
}
