package dev.arenascope.core.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Fails the test when its measured run makes more than {@link #value()} allocations: arena tensors,
 * pool requests and plan tensor bindings. Registers {@link ArenaScopeExtension}.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@ExtendWith(ArenaScopeExtension.class)
public @interface DeviceAllocationLimit {
    /** The most allocations (0 or more). */
    long value();

    /** As {@link DeviceMemoryLimit#memory()}. */
    String memory() default "";
}
